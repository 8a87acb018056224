import type { TenantAccess } from './catalog.types';

/** Tenant access modes: everyone, only the allowlist, or everyone but the denylist. */
export function tenantAdmitted(access: TenantAccess, tenantId: string): boolean {
  switch (access.mode) {
    case 'all':
      return true;
    case 'allowlist':
      return (access.allowlist ?? []).includes(tenantId);
    case 'denylist':
      return !(access.denylist ?? []).includes(tenantId);
  }
}

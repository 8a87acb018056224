import { ApiError } from '../common/api-error';
import type { Identity } from './request-context';
import { TENANT_ID_PATTERN, TENANT_ID_RULE } from './tenant-id';

/**
 * Tenant-scoped routes name a tenant in the path: admins may address any tenant, members only their
 * own. Another tenant is answered as not found, so tenant names do not leak. A name that no key or
 * token could carry is refused, so nothing is ever stored under it.
 */
export function assertTenantAccess(identity: Identity, tenantId: string): void {
  if (!TENANT_ID_PATTERN.test(tenantId)) throw ApiError.invalid(`tenant_id must be ${TENANT_ID_RULE}`, 'tenant_id');
  if (identity.role === 'admin' || identity.tenantId === tenantId) return;
  throw ApiError.notFound('tenant', tenantId, 'tenant_id');
}

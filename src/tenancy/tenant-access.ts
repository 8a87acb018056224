import { ApiError } from '../common/api-error';
import type { Identity } from './request-context';

/**
 * Tenant-scoped routes name a tenant in the path: admins may address any tenant, members only their
 * own. Another tenant is answered as not found, so tenant names do not leak.
 */
export function assertTenantAccess(identity: Identity, tenantId: string): void {
  if (identity.role === 'admin' || identity.tenantId === tenantId) return;
  throw ApiError.notFound('tenant', tenantId, 'tenant_id');
}

import { servedMcpToolSchema } from '../mcp-tool-schema';
import { contentHash } from './content-hash';
import type { Identity } from '../../tenancy/request-context';
import type { ToolEntity } from './tool.entity';
import type { ToolDto } from './tools.dto';

/** The API form of a catalog entry. Members do not see other tenants' names in tenant access lists. */
export function presentTool(entity: ToolEntity, viewer: Identity): ToolDto {
  const access: Record<string, unknown> =
    viewer.role === 'admin' ? { ...entity.tenantAccess } : { mode: entity.tenantAccess.mode };
  return {
    id: entity.id,
    object: 'tool',
    name: entity.name,
    description: entity.description,
    source: { ...entity.source },
    // Rows stored before schemas were held to MCP's shape are shown as they are served.
    schema: servedMcpToolSchema(entity.schema) ?? entity.schema,
    output_schema: entity.outputSchema,
    annotations: entity.annotations,
    permissions: entity.permissions,
    security_status: entity.securityStatus,
    tags: entity.tags,
    tenant_access: access,
    audit_level: entity.auditLevel,
    output_scan: entity.outputScan,
    argument_scan: entity.argumentScan,
    rate_limit: entity.rateLimit,
    owner_tenant_id: entity.ownerTenantId,
    stale: entity.stale,
    pending_change: entity.pendingChange as Record<string, unknown> | null,
    definition_hash: contentHash(entity),
    created_at: entity.createdAt.toISOString(),
    updated_at: entity.updatedAt.toISOString(),
    reviewed_by: entity.reviewedBy,
    reviewed_at: entity.reviewedAt?.toISOString() ?? null,
  };
}

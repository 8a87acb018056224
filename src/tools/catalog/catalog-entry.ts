import { newId } from '../../common/ids';
import type { JsonSchema, McpToolIcon } from '../tool-executor';
import type {
  ArgumentScanMode,
  AuditLevel,
  OutputScanMode,
  Permission,
  RateLimit,
  SecurityStatus,
  TenantAccess,
  ToolSource,
} from './catalog.types';
import { ToolEntity } from './tool.entity';

/** What whoever adds an entry decides; everything else starts from the same defaults for every origin. */
export interface NewCatalogEntryFields {
  name: string;
  description: string;
  source: ToolSource;
  schema: JsonSchema;
  outputSchema?: JsonSchema | null;
  annotations?: Record<string, unknown> | null;
  icons?: McpToolIcon[] | null;
  permissions?: Permission[];
  tags?: string[];
  tenantAccess?: TenantAccess;
  auditLevel?: AuditLevel;
  outputScan?: OutputScanMode | null;
  argumentScan?: ArgumentScanMode | null;
  rateLimit?: RateLimit | null;
  ownerTenantId?: string | null;
  securityStatus?: SecurityStatus;
  reviewedBy?: string | null;
  now: Date;
}

/**
 * The one constructor of catalog entries, for registration (POST /v1/tools), built-in sync and MCP
 * discovery alike, so no origin can leave out a field another path relies on (such as the
 * `source.credential_key` that makes each tenant call with its own credential). The automated review
 * is not run here: its caller knows the names the new entry must be compared with.
 */
export function newCatalogEntry(fields: NewCatalogEntryFields): ToolEntity {
  const reviewedBy = fields.reviewedBy ?? null;
  return Object.assign(new ToolEntity(), {
    id: newId('tool_'),
    name: fields.name,
    description: fields.description,
    source: compactSource(fields.source),
    schema: fields.schema,
    outputSchema: fields.outputSchema ?? null,
    annotations: fields.annotations ?? null,
    icons: fields.icons ?? null,
    permissions: fields.permissions ?? [],
    securityStatus: fields.securityStatus ?? 'unreviewed',
    tags: fields.tags ?? [],
    tenantAccess: fields.tenantAccess ?? { mode: 'all' },
    auditLevel: fields.auditLevel ?? 'basic',
    outputScan: fields.outputScan ?? null,
    argumentScan: fields.argumentScan ?? null,
    rateLimit: fields.rateLimit ?? null,
    ownerTenantId: fields.ownerTenantId ?? null,
    stale: false,
    reviewedHash: null,
    pendingChange: null,
    reviewedBy,
    reviewedAt: reviewedBy ? fields.now : null,
    createdAt: fields.now,
    updatedAt: fields.now,
  });
}

/** What an entry's origin (a provider, an MCP server) defines, as opposed to what operators govern. */
export interface OfferedDefinition {
  description: string;
  schema: JsonSchema;
  outputSchema?: JsonSchema | null;
  annotations?: Record<string, unknown> | null;
}

/** An existing entry takes its origin's current definition; tenant access, audit level and the rest stay. */
export function applyDefinition(entry: ToolEntity, definition: OfferedDefinition, now: Date): void {
  Object.assign(entry, {
    description: definition.description,
    schema: definition.schema,
    outputSchema: definition.outputSchema ?? null,
    annotations: definition.annotations ?? null,
    updatedAt: now,
  });
}

/** The MCP server a discovered tool came from, as much as the source entity says about it. */
export interface McpServerOfTool {
  name: string;
  url: string | null;
  auth: { credential_key?: string } | null;
}

/** The source of a tool discovered on an MCP server: each tenant's credential goes with it when the server has one. */
export function mcpToolSource(server: McpServerOfTool, toolName: string): ToolSource {
  return compactSource({
    type: 'mcp',
    server_name: server.name,
    server_url: server.url ?? undefined,
    tool_name: toolName,
    credential_key: server.auth?.credential_key,
  });
}

/**
 * Whether discovery of MCP server `serverName` created the entry, and so may refresh, stale and revive it.
 * An entry registered through the API may point at the same upstream tool, but it is its registrant's:
 * registration always records the registering tenant as owner, discovery never sets one.
 */
export function isDiscoveredOn(entry: ToolEntity, serverName: string): boolean {
  return entry.source.type === 'mcp' && entry.source.server_name === serverName && entry.ownerTenantId === null;
}

/** The source of a provider's built-in tool. */
export function builtinToolSource(provider: string, credentialKey?: string): ToolSource {
  return compactSource({ type: 'builtin', provider, credential_key: credentialKey });
}

/** Absent fields are left out rather than stored empty: a source shows exactly the fields it has. */
function compactSource(source: ToolSource): ToolSource {
  return Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== null && value !== ''),
  ) as unknown as ToolSource;
}

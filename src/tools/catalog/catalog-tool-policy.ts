import { Injectable } from '@nestjs/common';
import type { Identity } from '../../tenancy/request-context';
import { AuthorizedTool, Authorization, ResolvedTool, ToolPolicy } from '../invocation/tool-policy';
import { CatalogMetrics } from './catalog.metrics';
import { CatalogState } from './catalog-state';
import { RateLimiter } from './rate-limits/rate-limiter';
import { denialFor, effectiveEntries } from './effective-tools';
import type { ToolEntity } from './tool.entity';

/**
 * The governed policy: approved and not stale -> tenant admitted; the rate limit is taken separately,
 * once the call is known to be valid.
 * A caller sees and runs only the tools of its effective set; every refusal names its reason, to the caller
 * when it may know the tool and in the audit always.
 * Reads the cached catalog once per call, so only rate-limited tools cost a query per call.
 */
@Injectable()
export class CatalogToolPolicy extends ToolPolicy {
  constructor(
    private readonly state: CatalogState,
    private readonly metrics: CatalogMetrics,
    private readonly limiter: RateLimiter,
  ) {
    super();
  }

  async effectiveTools(identity: Identity, requested?: string[]): Promise<ResolvedTool[]> {
    const snapshot = await this.state.get();
    return effectiveEntries(snapshot, identity, requested).map((entry) => toResolved(entry));
  }

  async authorize(identity: Identity, name: string): Promise<AuthorizedTool | undefined> {
    const snapshot = await this.state.get();
    const entry = snapshot.toolsByName.get(name);
    if (!entry) return undefined;
    const tool = toResolved(entry);
    const denial = denialFor(snapshot, entry, identity);
    if (!denial) return { tool, access: { allowed: true }, visible: true };
    this.metrics.denials.inc({ reason: denial.code });
    return {
      tool,
      access: { allowed: false, status: 'denied', code: denial.code, reason: denial.reason },
      visible: knowsOf(identity, entry),
    };
  }

  async takeRateLimitSlot(identity: Identity, tool: ResolvedTool): Promise<Authorization> {
    const governance = tool.governance;
    if (!governance?.rateLimit) return { allowed: true };
    const limit = await this.limiter.consume(governance.toolId, identity.tenantId, governance.rateLimit);
    if (limit.allowed) return { allowed: true };
    this.metrics.denials.inc({ reason: 'rate_limited' });
    return {
      allowed: false,
      status: 'rate_limited',
      code: 'rate_limited',
      reason: `Rate limit of tool '${tool.name}' reached: ${limit.limit} calls per ${limit.window} for tenant '${identity.tenantId}'; retry in ${limit.retryAfterSeconds} s`,
      retryAfterSeconds: limit.retryAfterSeconds,
    };
  }
}

/**
 * Whether a caller outside the tool's effective set may still learn it exists: admins see the whole
 * catalog, a tenant the tools it registered (as GET /v1/tools shows them), and built-in names are public.
 */
function knowsOf(identity: Identity, entry: ToolEntity): boolean {
  return identity.role === 'admin' || entry.ownerTenantId === identity.tenantId || entry.source.type === 'builtin';
}

function toResolved(entry: ToolEntity): ResolvedTool {
  const source = entry.source;
  return {
    name: entry.name,
    definition: {
      name: entry.name,
      description: entry.description,
      parameters: entry.schema,
      ...(entry.outputSchema && { returns: resultSchema(entry), outputSchema: entry.outputSchema }),
      ...(entry.annotations && { annotations: entry.annotations }),
      ...(entry.icons?.length && { icons: entry.icons }),
    },
    source,
    origin: source.provider ?? source.server_name ?? source.template ?? source.type,
    governance: {
      toolId: entry.id,
      auditLevel: entry.auditLevel,
      rateLimit: entry.rateLimit,
      credentialKey: source.credential_key,
    },
    ...(entry.outputScan && { outputScan: entry.outputScan }),
    ...(entry.argumentScan && { argumentScan: entry.argumentScan }),
    permissions: entry.permissions,
    tags: entry.tags,
    ...(entry.ownerTenantId !== null && { registeredBy: entry.ownerTenantId }),
  };
}

/**
 * Results are checked against the tool's output schema. An MCP tool's result is `{content,
 * structuredContent}`, and the MCP spec requires structuredContent to match the declared outputSchema.
 */
function resultSchema(entry: ToolEntity): Record<string, unknown> {
  if (entry.source.type !== 'mcp') return entry.outputSchema!;
  return { type: 'object', properties: { structuredContent: entry.outputSchema }, required: ['structuredContent'] };
}

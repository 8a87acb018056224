import { Injectable, Optional } from '@nestjs/common';
import type { Identity } from '../../tenancy/request-context';
import { Authorization, ResolvedTool, ToolPolicy } from '../invocation/tool-policy';
import { FunctionRegistry } from '../registry/function-registry';
import type { ToolExecutor } from '../tool-executor';
import { CatalogMetrics } from './catalog.metrics';
import { CatalogState } from './catalog-state';
import { RateLimiter } from './rate-limits/rate-limiter';
import { denialFor, effectiveEntries } from './effective-tools';
import type { ToolEntity } from './tool.entity';

/** Executors of catalog tools other than built-ins (MCP sources), looked up by source type. */
export abstract class CatalogExecutors {
  abstract executorFor(tool: ToolEntity): ToolExecutor | undefined;
}

/**
 * The governed policy: approved and not stale -> tenant admitted; the rate limit is taken separately,
 * once the call is known to be valid.
 * A caller sees and runs only the tools of its effective set, and every refusal names its reason.
 * Reads the cached catalog, so only rate-limited tools cost a query per call.
 */
@Injectable()
export class CatalogToolPolicy extends ToolPolicy {
  constructor(
    private readonly state: CatalogState,
    private readonly registry: FunctionRegistry,
    private readonly metrics: CatalogMetrics,
    private readonly limiter: RateLimiter,
    @Optional() private readonly executors?: CatalogExecutors,
  ) {
    super();
  }

  async effectiveTools(identity: Identity, requested?: string[]): Promise<ResolvedTool[]> {
    const snapshot = await this.state.get();
    return effectiveEntries(snapshot, identity, requested).map((entry) => this.toResolved(entry));
  }

  async resolve(_identity: Identity, name: string): Promise<ResolvedTool | undefined> {
    const entry = (await this.state.get()).toolsByName.get(name);
    return entry && this.toResolved(entry);
  }

  async authorize(identity: Identity, tool: ResolvedTool): Promise<Authorization> {
    const snapshot = await this.state.get();
    const entry = snapshot.toolsByName.get(tool.name);
    const denial = entry
      ? denialFor(snapshot, entry, identity)
      : { code: 'not_approved' as const, reason: `Tool '${tool.name}' was removed from the catalog` };
    if (denial) {
      this.metrics.denials.inc({ reason: denial.code });
      return { allowed: false, status: 'denied', code: denial.code, reason: denial.reason };
    }
    return { allowed: true };
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

  private toResolved(entry: ToolEntity): ResolvedTool {
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
      executor: this.executorFor(entry),
      source: source.type,
      origin: source.provider ?? source.server_name ?? source.template ?? source.type,
      governance: {
        toolId: entry.id,
        auditLevel: entry.auditLevel,
        rateLimit: entry.rateLimit,
        credentialKey: source.credential_key,
      },
    };
  }

  private executorFor(entry: ToolEntity): ToolExecutor | undefined {
    if (entry.source.type === 'builtin') return this.registry.canExecute(entry.name) ? this.registry : undefined;
    return this.executors?.executorFor(entry);
  }
}

/**
 * Results are checked against the tool's output schema. An MCP tool's result is `{content,
 * structuredContent}`, and the MCP spec requires structuredContent to match the declared outputSchema.
 */
function resultSchema(entry: ToolEntity): Record<string, unknown> {
  if (entry.source.type !== 'mcp') return entry.outputSchema!;
  return { type: 'object', properties: { structuredContent: entry.outputSchema }, required: ['structuredContent'] };
}

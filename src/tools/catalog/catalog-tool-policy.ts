import { Injectable, Optional } from '@nestjs/common';
import type { Identity } from '../../tenancy/request-context';
import { Authorization, ResolvedTool, ToolPolicy } from '../invocation/tool-policy';
import { FunctionRegistry } from '../registry/function-registry';
import type { ToolExecutor } from '../tool-executor';
import { CatalogMetrics } from './catalog.metrics';
import { CatalogState } from './catalog-state';
import { denialFor, effectiveEntries } from './effective-tools';
import type { ToolEntity } from './tool.entity';

/** Executors of catalog tools other than built-ins (MCP sources), looked up by source type. */
export abstract class CatalogExecutors {
  abstract executorFor(tool: ToolEntity): ToolExecutor | undefined;
}

/**
 * The governed policy: a caller sees and runs only the tools of its effective set (DESIGN), and every
 * refusal names its reason. Reads the cached catalog, so authorization costs no query per call.
 */
@Injectable()
export class CatalogToolPolicy extends ToolPolicy {
  constructor(
    private readonly state: CatalogState,
    private readonly registry: FunctionRegistry,
    private readonly metrics: CatalogMetrics,
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
    if (!denial) return { allowed: true };
    this.metrics.denials.inc({ reason: denial.code });
    return { allowed: false, status: 'denied', code: denial.code, reason: denial.reason };
  }

  private toResolved(entry: ToolEntity): ResolvedTool {
    const source = entry.source;
    return {
      name: entry.name,
      definition: {
        name: entry.name,
        description: entry.description,
        parameters: entry.schema,
        ...(entry.outputSchema && { returns: entry.outputSchema }),
        ...(entry.annotations && { annotations: entry.annotations }),
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

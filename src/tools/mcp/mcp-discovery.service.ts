import { Injectable, Logger } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Counter } from 'prom-client';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { findUnstorableString, storableText } from '../../common/json-depth';
import { schemaProblems } from '../../common/json-schema';
import { withTimeout } from '../../common/timeout';
import { AppConfig } from '../../config/app-config';
import { AdvisoryLock, lockForTransaction } from '../../database/advisory-locks';
import { BackgroundTasks } from '../../observability/background';
import { MetricsRegistry } from '../../observability/metrics.registry';
import { CatalogDiscovery } from '../catalog/catalog-discovery.service';
import { isDiscoveredOn, mcpToolSource, OfferedDefinition } from '../catalog/catalog-entry';
import { CatalogState } from '../catalog/catalog-state';
import { canonical, contentHash, ReviewedContent } from '../catalog/content-hash';
import { oversizedField } from '../catalog/content-limits';
import { toolsOutsideServer } from '../catalog/impersonation-peers';
import { SYSTEM_REVIEWER, ToolReviewService } from '../catalog/tool-review.service';
import { PendingChange, ToolEntity } from '../catalog/tool.entity';
import type { JsonSchema } from '../tool-executor';
import { listModernToolsPage } from './era-2026/modern-tools';
import { headerParameters } from '../../common/mcp-param-headers';
import { SourceEra, UpstreamEras } from './era-2026/upstream-eras';
import { McpClientPool } from './mcp-client-pool';
import { listToolsPage, offeredTool, RejectedTool } from './mcp-tool-listing';
import { SsrfGuardedFetch } from './ssrf-guarded-fetch';
import { McpHealth } from './mcp-health';
import type { McpSourceEntity } from './mcp-source.entity';
import { McpSourceRepository } from './mcp-source.repository';
import { servedName, TakenNames } from './mcp-tool-names';
import { toolIcons } from './mcp-tool-icons';
import { catalogContentOf, contentOf } from './mcp-tool-content';

export interface DiscoveryResult {
  source: string;
  status: 'ok' | 'error';
  error?: string;
  tool_count: number;
  added: string[];
  changed: string[];
  stale: string[];
  revived: string[];
  /** Tools of the server left out of the catalog, and why (too large, unsafe pattern); an existing entry turns stale. */
  rejected: RejectedTool[];
  /** Entries whose name changed (the source's tool_names changed, or a name they waited for came free). */
  renamed: { from: string; to: string }[];
  /** With tool_names `upstream`: tools served under a prefixed name instead of their own, and why. */
  name_conflicts: NameConflict[];
}

export interface NameConflict {
  tool: string;
  name: string;
  reason: string;
}

interface SchemaChange {
  tool: ToolEntity;
  change: PendingChange;
}

const FIELDS: [keyof ReviewedContent, string][] = [
  ['description', 'description'],
  ['schema', 'input_schema'],
  ['outputSchema', 'output_schema'],
  ['annotations', 'annotations'],
];

/**
 * Auto-discovery: tools/list (all pages) becomes catalog entries. New tools start with the
 * source's default status (approved for trusted config sources) and are auto-reviewed; tools that
 * disappear turn stale and come back live with their status unchanged unless their definition changed;
 * a reviewed or approved tool whose definition changed goes back to unreviewed with `pending_change`
 * showing old and new (schema pinning), an audit event in its review history, a metric and a webhook.
 */
@Injectable()
export class McpDiscoveryService {
  private readonly logger = new Logger('McpDiscovery');
  private readonly schemaChanges: Counter<'source'>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly pool: McpClientPool,
    private readonly reviews: ToolReviewService,
    private readonly catalog: CatalogDiscovery,
    private readonly sources: McpSourceRepository,
    private readonly state: CatalogState,
    private readonly health: McpHealth,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly background: BackgroundTasks,
    private readonly guardedFetch: SsrfGuardedFetch,
    private readonly eras: UpstreamEras,
    metrics: MetricsRegistry,
  ) {
    this.schemaChanges = metrics.counter({
      name: 'tool_registry_schema_changes_total',
      help: 'Reviewed or approved MCP tools whose definition changed on the server, by source.',
      labelNames: ['source'],
    });
  }

  async discover(source: McpSourceEntity): Promise<DiscoveryResult> {
    const empty = {
      source: source.name,
      tool_count: 0,
      added: [],
      changed: [],
      stale: [],
      revived: [],
      rejected: [],
      renamed: [],
      name_conflicts: [],
    };
    let offered: { tools: unknown[]; era: SourceEra };
    const timeoutMs = this.config.mcp.discovery_timeout;
    try {
      // One bound for the whole discovery (connect, retry, every page), so one server never holds up the rest.
      offered = await withTimeout(this.listTools(source), timeoutMs, `no answer within ${timeoutMs} ms`);
    } catch (error) {
      const message = (error as Error).message;
      this.logger.warn(`Discovery of MCP source '${source.name}' failed: ${message}`);
      await this.recordSource(source, 'error', message, null);
      this.health.recordDiscovery(source.name, false);
      return { ...empty, status: 'error', error: message };
    }
    const { tools, rejected } = this.screen(offered.tools, offered.era);
    for (const refusal of rejected)
      this.logger.warn(`MCP source '${source.name}': tool '${refusal.tool}' left out: ${refusal.message}`);
    const { result, changes } = await this.dataSource.transaction(async (manager) => {
      // Two replicas refreshing one source take turns; different sources proceed in parallel.
      await lockForTransaction(manager, AdvisoryLock.mcpSource, source.id);
      // Sources serving their servers' own names may want the same name: one at a time, so the second sees the first.
      if (source.toolNames === 'upstream') await lockForTransaction(manager, AdvisoryLock.mcpServedNames, 'upstream');
      return this.apply(manager, source, tools);
    });
    result.rejected = rejected;
    for (const conflict of result.name_conflicts)
      this.logger.warn(
        `MCP source '${source.name}': tool '${conflict.tool}' served as '${conflict.name}': ${conflict.reason}`,
      );
    await this.recordSource(source, 'ok', discoverySummary(rejected, result.name_conflicts), tools.length);
    this.health.recordDiscovery(source.name, true);
    await this.state.changed();
    // New and changed definitions, and those the judge failed on before, go to the judge (when configured).
    this.reviews.reviewPending();
    for (const change of changes) this.background.run('mcp_schema_change_webhook', () => this.notify(source, change));
    return result;
  }

  /**
   * Tools whose description or schemas exceed the catalog limits, whose patterns cannot run in linear time, or
   * that are not valid MCP tools (a schema without the object root MCP clients require) are refused one by
   * one: the rest of the server's tools are still discovered.
   */
  private screen(offered: unknown[], era: SourceEra): { tools: Tool[]; rejected: RejectedTool[] } {
    const tools: Tool[] = [];
    const rejected: RejectedTool[] = [];
    for (const entry of offered) {
      const parsed = offeredTool(entry);
      if ('rejected' in parsed) {
        rejected.push(parsed.rejected);
        continue;
      }
      const tool = parsed.tool;
      // A 2026-07-28 client must leave out a tool whose x-mcp-header annotations are invalid (Streamable HTTP).
      const headers = era === 'modern' ? headerParameters(tool.inputSchema) : undefined;
      if (headers && 'problem' in headers) {
        rejected.push({ tool: tool.name, param: 'input_schema', message: `input_schema: ${headers.problem}` });
        continue;
      }
      const content = contentOf(tool);
      const oversized = oversizedField(content, this.config.catalog);
      if (oversized) {
        const param = oversized.param === 'schema' ? 'input_schema' : oversized.param;
        rejected.push({ tool: tool.name, param, message: oversized.message.replace(oversized.param, param) });
        continue;
      }
      const problem = (['schema', 'outputSchema'] as const)
        .map((field) => ({ field, violation: schemaProblems(content[field])[0] }))
        .find(({ violation }) => violation !== undefined);
      if (problem) {
        const param = `${problem.field === 'schema' ? 'input_schema' : 'output_schema'}${problem.violation.path.slice(1)}`;
        rejected.push({ tool: tool.name, param, message: `${param} ${problem.violation.message}` });
        continue;
      }
      const unstorable = findUnstorableString({ name: tool.name, ...content });
      if (unstorable !== undefined) {
        const param = unstorable.replace(/^schema\b/, 'input_schema').replace(/^outputSchema\b/, 'output_schema');
        rejected.push({
          tool: storableText(tool.name),
          param,
          message: `${param} contains a NUL character (\\u0000) or an unpaired surrogate, which the catalog cannot store`,
        });
        continue;
      }
      tools.push(tool);
    }
    return { tools, rejected };
  }

  /**
   * Every tool of the server, following pagination (the caller bounds the time), in the era the server speaks:
   * each refresh asks it again, as the server may have been upgraded or replaced since.
   */
  private async listTools(source: McpSourceEntity): Promise<{ tools: unknown[]; era: SourceEra }> {
    this.eras.forget(source);
    const modern = await this.eras.modern(source);
    if (modern) {
      const signal = AbortSignal.timeout(this.config.mcp.discovery_timeout);
      const tools: unknown[] = [];
      let cursor: string | undefined;
      do {
        const page = await listModernToolsPage(modern, cursor, signal);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && tools.length < 10_000);
      return { tools, era: 'modern' };
    }
    return { tools: await this.listLegacyTools(source), era: 'legacy' };
  }

  private async listLegacyTools(source: McpSourceEntity): Promise<unknown[]> {
    const attempt = async () => {
      const { client } = await this.pool.client(source);
      const tools: unknown[] = [];
      let cursor: string | undefined;
      do {
        const page = await listToolsPage(client, cursor, { timeout: this.config.mcp.discovery_timeout });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && tools.length < 10_000);
      return tools;
    };
    try {
      return await attempt();
    } catch {
      // A lost session (the server restarted) gets one fresh connection.
      await this.pool.discard(source);
      return attempt();
    }
  }

  private async apply(
    manager: EntityManager,
    source: McpSourceEntity,
    tools: Tool[],
  ): Promise<{ result: DiscoveryResult; changes: SchemaChange[] }> {
    const all = await this.catalog.entries(manager, source.name);
    // Only what this discovery created: an admin's own entry for the same upstream tool keeps its definition.
    const mine = new Map(all.filter((t) => isDiscoveredOn(t, source.name)).map((t) => [t.source.tool_name!, t]));
    const taken = new TakenNames(all.map((t) => t.name));
    const otherNames = toolsOutsideServer(source.name, all);
    const result: DiscoveryResult = {
      source: source.name,
      status: 'ok',
      tool_count: tools.length,
      added: [],
      changed: [],
      stale: [],
      revived: [],
      rejected: [],
      renamed: [],
      name_conflicts: [],
    };
    const changes: SchemaChange[] = [];
    const trusted = source.origin === 'config';
    const now = this.clock.now();
    const seen = new Set<string>();

    for (const tool of tools) {
      seen.add(tool.name);
      const content = contentOf(tool);
      const existing = mine.get(tool.name);
      const { name, conflict } = servedName(source.name, tool.name, source.toolNames, existing?.name, taken);
      if (conflict) result.name_conflicts.push({ tool: tool.name, name, reason: conflict });
      if (existing && existing.name !== name) {
        taken.delete(existing.name);
        result.renamed.push({ from: existing.name, to: name });
      }
      taken.add(name);
      if (!existing) {
        await this.catalog.registerDiscovered(
          manager,
          {
            name,
            source: mcpToolSource(source, tool.name),
            ...definitionOf(content),
            icons: toolIcons(tool.icons),
            tags: ['mcp', source.name],
            auditLevel: source.defaultAuditLevel,
            now,
          },
          otherNames,
          trusted
            ? { status: 'approved', reviewer: 'config', notes: 'trusted MCP server from the config file' }
            : {
                status: source.defaultSecurityStatus,
                reviewer: SYSTEM_REVIEWER,
                notes: `default status of MCP source '${source.name}'`,
              },
        );
        result.added.push(name);
        continue;
      }
      const wasStale = existing.stale;
      const before = catalogContentOf(existing);
      const changedFields = FIELDS.filter(
        ([field]) => canonical(content[field] ?? null) !== canonical(before[field] ?? null),
      ).map(([, label]) => label);
      await this.catalog.refreshDiscovered(manager, existing, {
        name,
        source,
        toolName: tool.name,
        icons: toolIcons(tool.icons),
        changed: changedFields.length ? { definition: definitionOf(content), otherNames } : undefined,
        now,
      });
      if (wasStale) result.revived.push(existing.name);
      if (changedFields.length === 0) continue;
      result.changed.push(existing.name);
      const pinned = existing.securityStatus === 'reviewed' || existing.securityStatus === 'approved';
      const detail = changedFields.join(', ');
      let held = false;
      if (trusted && existing.securityStatus !== 'blocked') {
        // Trusted means approved on the same checks as anyone else's tool; one that fails them is quarantined.
        const approved = await this.reviews.decideAutomatically(
          manager,
          existing,
          'approved',
          'config',
          `definition changed on the trusted MCP server (${detail})`,
        );
        held = !approved;
      } else if ((pinned && contentHash(existing) !== existing.reviewedHash) || existing.pendingChange) {
        if (existing.securityStatus !== 'blocked')
          await this.reviews.decide(
            manager,
            existing,
            'unreviewed',
            SYSTEM_REVIEWER,
            `definition changed on MCP server '${source.name}': ${detail}`,
          );
        held = true;
      }
      if (held) {
        // The pending change keeps what was last approved as `old` and always shows the current definition.
        const change = pendingChangeOf(existing.pendingChange?.old ?? presentContent(before), content, now);
        await this.catalog.recordPendingChange(manager, existing, change);
        this.schemaChanges.inc({ source: source.name });
        changes.push({ tool: existing, change });
      }
    }
    for (const [toolName, entity] of mine) {
      if (seen.has(toolName) || entity.stale) continue;
      await this.catalog.markStale(manager, entity, now);
      result.stale.push(entity.name);
    }
    return { result, changes };
  }

  private async recordSource(
    source: McpSourceEntity,
    status: 'ok' | 'error',
    error: string | null,
    toolCount: number | null,
  ): Promise<void> {
    const now = this.clock.now();
    await this.sources.recordDiscovery(source.id, {
      at: now,
      status,
      error,
      toolCount,
      nextRefreshAt: new Date(now.getTime() + source.refreshIntervalMs),
    });
  }

  /** Best effort: a JSON notification to the configured webhook; failures are logged, never retried forever. */
  private async notify(source: McpSourceEntity, { tool, change }: SchemaChange): Promise<void> {
    const url = this.config.mcp.schema_change_webhook_url;
    if (!url) return;
    const body = {
      type: 'tool.schema_changed',
      tool_id: tool.id,
      name: tool.name,
      source: source.name,
      tool_name: tool.source.tool_name,
      security_status: tool.securityStatus,
      ...change,
    };
    // The webhook gets the MCP servers' SSRF policy, checked on the address it really connects to.
    const response = await this.guardedFetch.fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`the schema-change webhook answered HTTP ${response.status}`);
  }
}

/**
 * Kept as the source's last discovery error, so that refusals and names not served as asked are visible after a
 * scheduled refresh too.
 */
function discoverySummary(rejected: RejectedTool[], conflicts: NameConflict[]): string | null {
  const parts = [
    summary(rejected, 'left out', (r) => `'${r.tool}' (${r.message})`),
    summary(conflicts, 'served under a prefixed name', (c) => `'${c.tool}' as '${c.name}' (${c.reason})`),
  ].filter((part) => part !== null);
  return parts.length ? parts.join('. ') : null;
}

function summary<T>(items: T[], what: string, describe: (item: T) => string): string | null {
  if (items.length === 0) return null;
  const listed = items.slice(0, 10).map(describe);
  const more = items.length > 10 ? `, and ${items.length - 10} more` : '';
  return `${items.length} tool(s) ${what}: ${listed.join('; ')}${more}`;
}

/** Old (what was approved) against the current definition; `fields` names what differs between the two. */
function pendingChangeOf(old: Record<string, unknown>, content: ReviewedContent, now: Date): PendingChange {
  const current = presentContent(content);
  const fields = Object.keys(current).filter((field) => canonical(old[field] ?? null) !== canonical(current[field]));
  return { detected_at: now.toISOString(), fields, old, new: current };
}

/** A server's tool as the catalog stores its definition. */
function definitionOf(content: ReviewedContent): OfferedDefinition {
  return {
    description: content.description,
    schema: content.schema as JsonSchema,
    outputSchema: content.outputSchema as JsonSchema | null,
    annotations: content.annotations as Record<string, unknown> | null,
  };
}

function presentContent(content: ReviewedContent): Record<string, unknown> {
  return {
    description: content.description,
    input_schema: content.schema,
    output_schema: content.outputSchema ?? null,
    annotations: content.annotations ?? null,
  };
}

import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import ms from 'ms';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { ListPage, ListQueryDto } from '../../common/list.dto';
import { AppConfig } from '../../config/app-config';
import { ChangeEvents } from '../../database/change-events';
import { CatalogDiscovery } from '../catalog/catalog-discovery.service';
import { CatalogState } from '../catalog/catalog-state';
import { SecretResolver } from '../catalog/credentials/secret-resolver';
import { McpClientPool } from './mcp-client-pool';
import { McpHealth } from './mcp-health';
import { McpSourceEntity } from './mcp-source.entity';
import { McpSourceRepository } from './mcp-source.repository';
import type { CreateMcpSourceDto, McpSourceDto, UpdateMcpSourceDto } from './mcp-sources.dto';
import { assertUrlAllowed } from './ssrf-policy';

const SOURCES_CHANGED = 'mcp.sources.changed';
const DEFAULT_REFRESH_MS = 3_600_000;
const MIN_REFRESH_MS = 10_000;

/**
 * MCP sources: registered through the API or listed in the config
 * file (trusted, stdio allowed). Deleting a source keeps its tools, stale. Sources are cached per
 * replica and refreshed through LISTEN/NOTIFY, so the executor reads them without a query.
 */
@Injectable()
export class McpSourcesService implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpSources');
  private cache?: Promise<Map<string, McpSourceEntity>>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sources: McpSourceRepository,
    private readonly catalog: CatalogDiscovery,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly events: ChangeEvents,
    private readonly state: CatalogState,
    private readonly pool: McpClientPool,
    private readonly health: McpHealth,
    secrets: SecretResolver,
  ) {
    events.subscribe(SOURCES_CHANGED, () => (this.cache = undefined));
    events.onReset(() => (this.cache = undefined));
    for (const server of config.mcp_servers) {
      if (server.auth?.secret_ref) secrets.require(server.auth.secret_ref, `MCP server '${server.name}' (config file)`);
    }
  }

  /** Config-file servers become trusted sources; ones removed from the file are removed (their tools stay, stale). */
  async onApplicationBootstrap(): Promise<void> {
    const now = this.clock.now();
    const configured = new Set(this.config.mcp_servers.map((server) => server.name));
    for (const server of this.config.mcp_servers) {
      const existing = await this.sources.byName(server.name);
      if (existing && existing.origin !== 'config') {
        this.logger.error(
          `MCP server '${server.name}' from the config file clashes with an API-registered source of that name; the config entry is ignored`,
        );
        continue;
      }
      const fields = {
        origin: 'config' as const,
        url: server.url ?? null,
        transport: server.command ? ('stdio' as const) : (server.transport ?? 'auto'),
        command: server.command
          ? {
              command: server.command,
              args: server.args,
              env: server.env,
              inherit_env: server.inherit_env,
              cwd: server.cwd,
            }
          : null,
        auth: server.auth ?? null,
        autoDiscover: true,
        refreshIntervalMs: server.refresh_interval,
        defaultSecurityStatus: 'approved' as const,
        defaultAuditLevel: server.default_audit_level,
        toolNames: server.tool_names,
      };
      const changed = !existing || JSON.stringify({ ...pick(existing, fields) }) !== JSON.stringify(fields);
      if (!changed) continue;
      const source =
        existing ??
        Object.assign(new McpSourceEntity(), {
          id: newId('mcpsrc_'),
          name: server.name,
          createdAt: now,
          nextRefreshAt: null,
        });
      await this.sources.save(Object.assign(source, fields, { updatedAt: now }));
    }
    const removed = (await this.sources.byOrigin('config')).filter((source) => !configured.has(source.name));
    for (const source of removed) await this.removeSource(source);
    await this.changed();
  }

  async create(input: CreateMcpSourceDto): Promise<McpSourceEntity> {
    if (input.transport === 'stdio')
      throw ApiError.invalid(
        'stdio MCP servers can only be configured in the config file (mcp_servers)',
        'transport',
        'stdio_not_allowed',
      );
    await this.checkUrl(input.url);
    const now = this.clock.now();
    const source = Object.assign(new McpSourceEntity(), {
      id: newId('mcpsrc_'),
      name: input.name,
      origin: 'api',
      url: input.url,
      transport: input.transport ?? 'auto',
      command: null,
      auth: input.auth ?? null,
      autoDiscover: input.auto_discover ?? true,
      refreshIntervalMs: refreshMs(input.refresh_interval),
      defaultSecurityStatus: input.default_security_status ?? 'unreviewed',
      defaultAuditLevel: input.default_audit_level ?? 'basic',
      toolNames: input.tool_names ?? 'prefixed',
      lastDiscoveryAt: null,
      lastDiscoveryStatus: null,
      lastDiscoveryError: null,
      lastToolCount: null,
      nextRefreshAt: null,
      createdAt: now,
      updatedAt: now,
    });
    await this.sources.insert(source).catch((error: { code?: string; driverError?: { code?: string } }) => {
      if ((error.driverError?.code ?? error.code) === '23505')
        throw ApiError.conflict(`An MCP source named '${input.name}' already exists`, 'name_taken', 'name');
      throw error;
    });
    await this.changed();
    return source;
  }

  list(query: ListQueryDto): Promise<ListPage<McpSourceDto>> {
    return this.sources.page(query, presentSource);
  }

  async get(name: string): Promise<McpSourceEntity> {
    const source = await this.sources.byName(name);
    if (!source) throw ApiError.notFound('MCP source', name, 'name');
    return source;
  }

  async update(name: string, input: UpdateMcpSourceDto): Promise<McpSourceEntity> {
    const source = await this.editable(name);
    if (input.transport === 'stdio')
      throw ApiError.invalid(
        'stdio MCP servers can only be configured in the config file (mcp_servers)',
        'transport',
        'stdio_not_allowed',
      );
    if (input.url !== undefined) await this.checkUrl(input.url);
    Object.assign(source, {
      ...(input.url !== undefined && { url: input.url }),
      ...(input.transport !== undefined && { transport: input.transport }),
      ...(input.auth !== undefined && { auth: input.auth }),
      ...(input.auto_discover !== undefined && { autoDiscover: input.auto_discover }),
      ...(input.refresh_interval !== undefined && {
        refreshIntervalMs: refreshMs(input.refresh_interval),
        nextRefreshAt: null,
      }),
      ...(input.default_security_status !== undefined && { defaultSecurityStatus: input.default_security_status }),
      ...(input.default_audit_level !== undefined && { defaultAuditLevel: input.default_audit_level }),
      ...(input.tool_names !== undefined && { toolNames: input.tool_names }),
      updatedAt: this.clock.now(),
    });
    await this.dataSource.transaction(async (manager) => {
      await this.sources.save(source, manager);
      // The tools take the new url and credential_key at once, not at the next refresh.
      if (input.auth !== undefined || input.url !== undefined) await this.catalog.retargetServer(manager, source);
    });
    await this.pool.closeSource(source.id);
    await this.changed();
    await this.state.changed();
    return source;
  }

  /** The source goes; its tools stay in the catalog, stale (not callable), in case it comes back. */
  async remove(name: string): Promise<{ id: string; object: 'mcp_source.deleted'; deleted: true }> {
    const source = await this.editable(name);
    await this.removeSource(source);
    await this.changed();
    return { id: source.id, object: 'mcp_source.deleted', deleted: true };
  }

  /** The cached source of that name (for execution), or undefined. */
  async byName(name: string): Promise<McpSourceEntity | undefined> {
    return (await this.all()).get(name);
  }

  /** Sources whose refresh is due, for the scheduler. */
  async due(): Promise<McpSourceEntity[]> {
    return this.sources.due(this.clock.now());
  }

  private all(): Promise<Map<string, McpSourceEntity>> {
    if (!this.cache) {
      const loading = this.sources.all().then((rows) => new Map(rows.map((source) => [source.name, source])));
      this.cache = loading;
      loading.catch(() => (this.cache = undefined));
    }
    return this.cache;
  }

  private async editable(name: string): Promise<McpSourceEntity> {
    const source = await this.get(name);
    if (source.origin === 'config')
      throw ApiError.conflict(
        `MCP source '${name}' comes from the config file; change it there`,
        'config_source',
        'name',
      );
    return source;
  }

  private async removeSource(source: McpSourceEntity): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.catalog.markServerStale(manager, source.name, this.clock.now());
      await this.sources.delete(manager, source.id);
    });
    await this.pool.closeSource(source.id);
    this.health.forget(source.name);
    await this.state.changed();
  }

  /** The SSRF policy every registered URL passes (also used to check an import before anything is created). */
  async checkUrl(url: string): Promise<void> {
    await assertUrlAllowed(url, {
      allowPrivateNetworks: this.config.mcp.allow_private_networks,
      allowLinkLocal: this.config.mcp.allow_link_local,
    });
  }

  private async changed(): Promise<void> {
    this.cache = undefined;
    await this.events.publish(SOURCES_CHANGED);
  }
}

function refreshMs(value: string | undefined): number {
  if (value === undefined) return DEFAULT_REFRESH_MS;
  const parsed = ms(value as ms.StringValue);
  if (typeof parsed !== 'number' || parsed < MIN_REFRESH_MS)
    throw ApiError.invalid(`refresh_interval must be at least ${MIN_REFRESH_MS / 1000}s`, 'refresh_interval');
  return parsed;
}

function pick(entity: McpSourceEntity, like: object): Record<string, unknown> {
  return Object.fromEntries(Object.keys(like).map((key) => [key, (entity as unknown as Record<string, unknown>)[key]]));
}

export function presentSource(source: McpSourceEntity): McpSourceDto {
  return {
    id: source.id,
    object: 'mcp_source',
    name: source.name,
    origin: source.origin,
    url: source.url,
    transport: source.transport,
    auth: source.auth,
    auto_discover: source.autoDiscover,
    refresh_interval: ms(source.refreshIntervalMs),
    default_security_status: source.defaultSecurityStatus,
    default_audit_level: source.defaultAuditLevel,
    tool_names: source.toolNames,
    last_discovery: {
      at: source.lastDiscoveryAt?.toISOString() ?? null,
      status: source.lastDiscoveryStatus,
      error: source.lastDiscoveryError,
      tool_count: source.lastToolCount,
    },
    created_at: source.createdAt.toISOString(),
    updated_at: source.updatedAt.toISOString(),
  };
}

import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { AppConfig } from '../config/app-config';
import type { Identity } from '../tenancy/request-context';
import { CatalogState } from '../tools/catalog/catalog-state';
import type { ToolEntity } from '../tools/catalog/tool.entity';
import { ToolDispatcher } from '../tools/invocation/tool-dispatcher';
import type { McpSourceEntity } from '../tools/mcp/mcp-source.entity';
import { McpSourcesService } from '../tools/mcp/mcp-sources.service';
import type { RegistryListQueryDto } from './registry.dto';
import {
  gatewayRemote,
  OFFICIAL_META,
  REVIEW_META,
  SERVER_SCHEMA_URL,
  type ServerListResponse,
  type ServerResponse,
  type ServerReviewMeta,
} from './registry-format';

const DEFAULT_LIMIT = 30;
/** server.json caps descriptions at 100 characters. */
const DESCRIPTION_MAX = 100;
const REVIEW_ORDER = ['unreviewed', 'reviewed', 'approved'];

/**
 * The MCP Registry API over Toolgate's MCP sources, per caller: a source is listed only when at least one
 * of its tools is in the caller's effective set, so the registry never reveals what the caller cannot use.
 * Every entry's remote is this service's /mcp gateway, not the source itself: clients then reach the
 * tools only through Toolgate's policy, rate limits and audit, with their Toolgate credential.
 */
@Injectable()
export class RegistryService {
  constructor(
    private readonly config: AppConfig,
    private readonly dispatcher: ToolDispatcher,
    private readonly catalog: CatalogState,
    private readonly sources: McpSourcesService,
  ) {}

  async list(identity: Identity, query: RegistryListQueryDto, baseUrl: string): Promise<ServerListResponse> {
    const since = query.updated_since === undefined ? undefined : parseTimestamp(query.updated_since);
    const search = query.search?.toLowerCase();
    const limit = query.limit ?? DEFAULT_LIMIT;
    const visible = (await this.visibleServers(identity, baseUrl))
      .filter((entry) => query.cursor === undefined || entry.server.name > query.cursor)
      .filter((entry) => search === undefined || entry.server.name.toLowerCase().includes(search))
      .filter((entry) => since === undefined || Date.parse(entry._meta[OFFICIAL_META].updatedAt) > since.getTime());
    const page = visible.slice(0, limit);
    const more = visible.length > limit;
    return {
      servers: page,
      metadata: { ...(more && { nextCursor: page[page.length - 1].server.name }), count: page.length },
    };
  }

  /** All versions of one server: Toolgate keeps one, the source's current state. */
  async versions(identity: Identity, name: string, baseUrl: string): Promise<ServerListResponse> {
    const entry = await this.find(identity, name, baseUrl);
    return { servers: [entry], metadata: { count: 1 } };
  }

  async version(identity: Identity, name: string, version: string, baseUrl: string): Promise<ServerResponse> {
    const entry = await this.find(identity, name, baseUrl);
    if (version !== 'latest' && version !== entry.server.version)
      throw ApiError.notFound('version of server', `${name}@${version}`, 'version');
    return entry;
  }

  private async find(identity: Identity, name: string, baseUrl: string): Promise<ServerResponse> {
    const entry = (await this.visibleServers(identity, baseUrl)).find((candidate) => candidate.server.name === name);
    // Unknown and not visible to this caller answer alike, so names of other tenants' servers don't leak.
    if (!entry) throw ApiError.notFound('server', name, 'serverName');
    return entry;
  }

  private async visibleServers(identity: Identity, baseUrl: string): Promise<ServerResponse[]> {
    const [effective, snapshot] = await Promise.all([this.dispatcher.effectiveTools(identity), this.catalog.get()]);
    const toolsBySource = new Map<string, ToolEntity[]>();
    for (const tool of effective) {
      const entry = snapshot.toolsByName.get(tool.name);
      const sourceName = entry?.source.type === 'mcp' ? entry.source.server_name : undefined;
      if (!entry || !sourceName) continue;
      toolsBySource.set(sourceName, [...(toolsBySource.get(sourceName) ?? []), entry]);
    }
    const entries: ServerResponse[] = [];
    for (const [sourceName, tools] of toolsBySource) {
      const source = await this.sources.byName(sourceName);
      if (source) entries.push(this.present(source, tools, baseUrl));
    }
    return entries.sort((a, b) => (a.server.name < b.server.name ? -1 : a.server.name > b.server.name ? 1 : 0));
  }

  private present(source: McpSourceEntity, tools: ToolEntity[], baseUrl: string): ServerResponse {
    const names = tools.map((tool) => tool.name).sort();
    return {
      server: {
        $schema: SERVER_SCHEMA_URL,
        name: `${this.config.gateway.registry_namespace}/${source.name}`,
        title: source.name,
        description: truncate(`${names.length} governed tool(s) via Toolgate: ${names.join(', ')}`),
        version: sourceVersion(source),
        remotes: [gatewayRemote(baseUrl)],
      },
      _meta: {
        [OFFICIAL_META]: {
          status: 'active',
          publishedAt: source.createdAt.toISOString(),
          updatedAt: source.updatedAt.toISOString(),
          isLatest: true,
        },
        [REVIEW_META]: review(tools),
      },
    };
  }
}

function review(tools: ToolEntity[]): ServerReviewMeta {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : 1));
  const scores = sorted.map((tool) => tool.autoReview?.score).filter((score) => typeof score === 'number');
  const status = sorted
    .map((tool) => tool.securityStatus as string)
    .reduce((least, status) => (REVIEW_ORDER.indexOf(status) < REVIEW_ORDER.indexOf(least) ? status : least));
  return {
    status,
    score: scores.length ? Math.min(...scores) : null,
    tools: sorted.map((tool) => ({
      name: tool.name,
      security_status: tool.securityStatus,
      score: typeof tool.autoReview?.score === 'number' ? tool.autoReview.score : null,
      reviewed_at: tool.reviewedAt?.toISOString() ?? null,
    })),
  };
}

/** A source has no release numbers of its own; its last change date stands in, so clients see when it moved. */
function sourceVersion(source: McpSourceEntity): string {
  const at = source.updatedAt;
  return `${at.getUTCFullYear()}.${at.getUTCMonth() + 1}.${at.getUTCDate()}`;
}

function truncate(text: string): string {
  return text.length <= DESCRIPTION_MAX ? text : `${text.slice(0, DESCRIPTION_MAX - 3)}...`;
}

function parseTimestamp(value: string): Date {
  // RFC 3339 only: Date.parse alone would also take loose forms such as "March 7".
  const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
  const parsed = rfc3339.test(value) ? new Date(value) : undefined;
  if (!parsed || Number.isNaN(parsed.getTime()))
    throw ApiError.invalid('updated_since must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z', 'updated_since');
  return parsed;
}

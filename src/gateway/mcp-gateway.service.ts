import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { version } from '../../package.json';
import { ApiError } from '../common/api-error';
import { randomToken } from '../common/ids';
import { ChangeEvents } from '../database/change-events';
import { BackgroundTasks } from '../observability/background';
import type { Identity } from '../tenancy/request-context';
import { CATALOG_CHANGED } from '../tools/catalog/catalog-state';
import { asMcpTool } from '../tools/invocation/tool-definitions.controller';
import { ToolDispatcher } from '../tools/invocation/tool-dispatcher';
import { errorResult, toCallToolResult } from './call-tool-result';
import { byServedName } from './served-tool-order';

const PAGE_SIZE = 100;
const IDLE_TIMEOUT_MS = 30 * 60_000;
const LAST_SEEN_RESOLUTION_MS = 60_000;

export interface GatewaySession {
  id: string;
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** The caller of the latest request: every request re-authenticates, and must be the session's owner. */
  identity: Identity;
  /** Tool names the client last listed, to tell whether a catalog change concerns it. */
  listed: string;
  lastSeen: number;
}

/**
 * The MCP server at /mcp: each tenant's governed tool set, served over Streamable HTTP with sessions.
 * tools/list is the caller's effective set; tools/call runs through the ToolDispatcher (authorization,
 * validation, rate limits, audit, metrics). Sessions are recorded in the database, so a request that
 * lands on another replica is served there too; every replica tells its open sessions when their tool
 * set changes (notifications/tools/list_changed), since catalog changes reach all replicas.
 */
@Injectable()
export class McpGatewayService implements OnApplicationShutdown {
  private readonly logger = new Logger('McpGateway');
  private readonly sessions = new Map<string, GatewaySession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly dispatcher: ToolDispatcher,
    private readonly dataSource: DataSource,
    private readonly background: BackgroundTasks,
    events: ChangeEvents,
  ) {
    events.subscribe(CATALOG_CHANGED, () => background.run('mcp_gateway_announce', () => this.announceChanges()));
    this.sweeper = setInterval(() => background.run('mcp_gateway_sweep', () => this.closeIdle()), 60_000).unref();
  }

  /** A new session, created by an initialize request. */
  async open(identity: Identity): Promise<GatewaySession> {
    const id = randomToken(32);
    const session = this.build(id, identity, () => id);
    await session.server.connect(session.transport);
    this.sessions.set(id, session);
    await this.dataSource.query(`INSERT INTO mcp_gateway_sessions (id, tenant_id, subject) VALUES ($1, $2, $3)`, [
      id,
      identity.tenantId,
      identity.subject,
    ]);
    return session;
  }

  /**
   * The caller's session: held here, or begun on another replica and adopted. Another caller's session
   * is answered as unknown.
   */
  async find(id: string, identity: Identity): Promise<GatewaySession | undefined> {
    const local = this.sessions.get(id);
    if (local) return this.owns(local.identity, identity) ? this.touch(local, identity) : undefined;
    const [row] = await this.dataSource.query(`SELECT tenant_id, subject FROM mcp_gateway_sessions WHERE id = $1`, [
      id,
    ]);
    if (!row || row.tenant_id !== identity.tenantId || row.subject !== identity.subject) return undefined;
    return this.touch(await this.adopt(id, identity), identity);
  }

  async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    await this.dataSource.query(`DELETE FROM mcp_gateway_sessions WHERE id = $1`, [id]);
    // Closing a transport whose client is already gone may fail; the session is forgotten either way.
    await session?.transport.close().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    // Sessions stay in the database: clients reconnect to another replica and carry on. A transport that
    // fails to close at shutdown has nothing left to clean up.
    await Promise.all([...this.sessions.values()].map((session) => session.transport.close().catch(() => undefined)));
    this.sessions.clear();
  }

  private async adopt(id: string, identity: Identity): Promise<GatewaySession> {
    const session = this.build(id, identity, () => id);
    await session.server.connect(session.transport);
    // The SDK keeps a session's state in its web-standard transport and has no public way to resume a
    // session that was initialized elsewhere; marking it initialized under its id is all that is needed.
    const inner = (
      session.transport as unknown as { _webStandardTransport: { sessionId?: string; _initialized: boolean } }
    )._webStandardTransport;
    inner.sessionId = id;
    inner._initialized = true;
    this.sessions.set(id, session);
    this.logger.log(`Adopted MCP session of tenant '${identity.tenantId}' begun on another replica`);
    return session;
  }

  private build(id: string, identity: Identity, sessionIdGenerator: () => string): GatewaySession {
    const server = new Server({ name: 'toolgate', version }, { capabilities: { tools: { listChanged: true } } });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator,
      onsessionclosed: () => this.background.run('mcp_session_close', () => this.close(id)),
    });
    const session: GatewaySession = { id, server, transport, identity, listed: '', lastSeen: Date.now() };
    server.setRequestHandler(ListToolsRequestSchema, async (request) =>
      this.listTools(session, request.params?.cursor),
    );
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const progressToken = request.params._meta?.progressToken;
      let step = 0;
      try {
        const toolCall = await this.dispatcher.invoke(
          session.identity,
          { name: request.params.name, arguments: request.params.arguments ?? {} },
          {
            signal: extra.signal,
            onProgress:
              progressToken === undefined
                ? undefined
                : (event) => {
                    step += 1;
                    const progress = typeof event.progress === 'number' ? event.progress : step;
                    const total = typeof event.total === 'number' ? event.total : undefined;
                    const message = typeof event.message === 'string' ? event.message : undefined;
                    // Progress is advisory: a client that went away mid-call simply misses it.
                    void extra
                      .sendNotification({
                        method: 'notifications/progress',
                        params: { progressToken, progress, total, message },
                      })
                      .catch(() => undefined);
                  },
          },
        );
        return toCallToolResult(toolCall);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.code === 'unknown_tool') throw new McpError(ErrorCode.InvalidParams, error.message);
        return errorResult(error.message);
      }
    });
    return session;
  }

  private async listTools(session: GatewaySession, cursor?: string): Promise<{ tools: Tool[]; nextCursor?: string }> {
    const tools = (await this.dispatcher.effectiveTools(session.identity)).sort(byServedName);
    session.listed = tools.map((tool) => tool.name).join('\n');
    const start = cursor ? Number(Buffer.from(cursor, 'base64url').toString()) : 0;
    if (!Number.isInteger(start) || start < 0) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
    const page = tools.slice(start, start + PAGE_SIZE).map((tool) => asMcpTool(tool.definition) as unknown as Tool);
    const next =
      start + PAGE_SIZE < tools.length ? Buffer.from(String(start + PAGE_SIZE)).toString('base64url') : undefined;
    return { tools: page, ...(next && { nextCursor: next }) };
  }

  /** After any catalog change: tell each open session whose tool set changed. */
  private async announceChanges(): Promise<void> {
    for (const session of this.sessions.values()) {
      try {
        const names = (await this.dispatcher.effectiveTools(session.identity))
          .map((tool) => tool.name)
          .sort()
          .join('\n');
        if (names === session.listed) continue;
        session.listed = names;
        await session.server.sendToolListChanged();
      } catch (error) {
        this.logger.warn(`list_changed for session ${session.id.slice(0, 6)}... failed: ${(error as Error).message}`);
      }
    }
  }

  private owns(owner: Identity, caller: Identity): boolean {
    return owner.tenantId === caller.tenantId && owner.subject === caller.subject;
  }

  private touch(session: GatewaySession, identity: Identity): GatewaySession {
    session.identity = identity;
    const now = Date.now();
    if (now - session.lastSeen > LAST_SEEN_RESOLUTION_MS) {
      this.background.run('mcp_session_touch', () =>
        this.dataSource.query(`UPDATE mcp_gateway_sessions SET last_seen_at = now() WHERE id = $1`, [session.id]),
      );
    }
    session.lastSeen = now;
    return session;
  }

  private async closeIdle(): Promise<void> {
    const cutoff = Date.now() - IDLE_TIMEOUT_MS;
    for (const session of [...this.sessions.values()]) {
      // One session that fails to close must not keep the sweep from the others.
      if (session.lastSeen < cutoff) await this.background.settle('mcp_session_close', this.close(session.id));
    }
    await this.dataSource.query(`DELETE FROM mcp_gateway_sessions WHERE last_seen_at < now() - interval '1 day'`);
  }
}

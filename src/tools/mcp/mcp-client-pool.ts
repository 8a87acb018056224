import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { SecretResolver } from '../catalog/credentials/secret-resolver';
import { connectToSource, McpConnection } from './mcp-connection';
import type { McpSourceEntity } from './mcp-source.entity';
import { SsrfGuardedFetch } from './ssrf-guarded-fetch';
import { assertUrlAllowed } from './ssrf-policy';
import { Clock } from '../../common/clock';
import { Tracing } from '../../observability/tracing/tracing';

interface PooledConnection {
  connection: Promise<McpConnection>;
  lastUsed: number;
}

/**
 * One connected SDK client per (source, tenant credential), reused across calls. A client whose
 * session is lost is dropped and reconnected on the next use; idle clients are closed. The connection
 * without a tenant credential also listens for `notifications/tools/list_changed`.
 */
@Injectable()
export class McpClientPool implements OnApplicationShutdown {
  private readonly logger = new Logger('McpClientPool');
  private readonly pool = new Map<string, PooledConnection>();
  private readonly sweeper: NodeJS.Timeout;
  private toolListChanged?: (source: McpSourceEntity) => void;

  constructor(
    private readonly config: AppConfig,
    private readonly secrets: SecretResolver,
    private readonly guardedFetch: SsrfGuardedFetch,
    private readonly clock: Clock,
    private readonly tracing: Tracing,
  ) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.min(60_000, config.mcp.idle_client_timeout)).unref();
  }

  /** Called by discovery so servers can ask for a refresh. */
  onToolListChanged(handler: (source: McpSourceEntity) => void): void {
    this.toolListChanged = handler;
  }

  /** Asks for a refresh of the source, as the server's own notifications/tools/list_changed would. */
  announceToolListChanged(source: McpSourceEntity): void {
    this.toolListChanged?.(source);
  }

  /** A connected client for the source, authenticated with the source's auth and, if given, the tenant's credential. */
  async client(source: McpSourceEntity, credential?: string): Promise<McpConnection> {
    const key = poolKey(source, credential);
    const pooled = this.pool.get(key);
    if (pooled) {
      pooled.lastUsed = this.clock.now().getTime();
      return pooled.connection;
    }
    const connection = this.open(source, credential);
    this.pool.set(key, { connection, lastUsed: this.clock.now().getTime() });
    const forget = () => {
      if (this.pool.get(key)?.connection === connection) this.pool.delete(key);
    };
    connection.then((opened) => {
      opened.client.onclose = forget;
      // Closing after a message over the cap can take seconds (a stdio process is given time to exit).
      opened.onTooLarge(forget);
    }, forget);
    return connection;
  }

  /** Forgets a connection that failed (lost session, closed transport): the next call reconnects. */
  async discard(source: McpSourceEntity, credential?: string): Promise<void> {
    const key = poolKey(source, credential);
    const pooled = this.pool.get(key);
    this.pool.delete(key);
    // Dropping a connection that may never have connected (its promise rejected) or already died.
    await pooled?.connection.then((c) => c.close()).catch(() => undefined);
  }

  /** Closes every connection of a source (it was changed or deleted). */
  async closeSource(sourceId: string): Promise<void> {
    const keys = [...this.pool.keys()].filter((key) => key.startsWith(`${sourceId}:`));
    await Promise.all(
      keys.map(async (key) => {
        const pooled = this.pool.get(key);
        this.pool.delete(key);
        // As in discard(): the connection may have failed already; it is out of the pool either way.
        await pooled?.connection.then((c) => c.close()).catch(() => undefined);
      }),
    );
  }

  /** The headers a source needs: its own auth (from secret_ref) and the tenant's credential as a bearer token. */
  headersFor(source: McpSourceEntity, credential?: string): Record<string, string> {
    const headers: Record<string, string> = {};
    const auth = source.auth;
    if (auth && auth.type !== 'none') {
      const secret = auth.secret_ref ? this.secrets.resolve(auth.secret_ref) : undefined;
      if (!secret)
        throw new Error(
          `the secret '${auth.secret_ref}' of MCP source '${source.name}' is not available (${auth.secret_ref ? this.secrets.describeLocations(auth.secret_ref) : 'no secret_ref'})`,
        );
      if (auth.type === 'bearer') headers.Authorization = `Bearer ${secret}`;
      else headers[auth.header ?? 'X-API-Key'] = secret;
    }
    if (credential !== undefined) headers.Authorization = `Bearer ${credential}`;
    return headers;
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.pool.values()];
    this.pool.clear();
    // Shutdown: a connection that fails to close (or never connected) has nothing left to clean up.
    await Promise.all(all.map((pooled) => pooled.connection.then((c) => c.close()).catch(() => undefined)));
  }

  private async open(source: McpSourceEntity, credential?: string): Promise<McpConnection> {
    if (source.url)
      await assertUrlAllowed(source.url, {
        allowPrivateNetworks: this.config.mcp.allow_private_networks,
        allowLinkLocal: this.config.mcp.allow_link_local,
      });
    const connection = await connectToSource(source, {
      headers: this.headersFor(source, credential),
      // Each request carries the trace context active when it is sent (the call's span), not the opener's.
      fetch: this.tracing.propagatingFetch(this.guardedFetch.fetch),
      timeoutMs: this.config.mcp.discovery_timeout,
      maxMessageBytes: this.config.mcp.max_result_bytes,
      onToolListChanged: credential === undefined ? () => this.toolListChanged?.(source) : undefined,
    });
    this.logger.log(`Connected to MCP source '${source.name}' over ${connection.transport}`);
    return connection;
  }

  private closeIdle(): void {
    const cutoff = this.clock.now().getTime() - this.config.mcp.idle_client_timeout;
    for (const [key, pooled] of this.pool) {
      if (pooled.lastUsed >= cutoff) continue;
      this.pool.delete(key);
      // An idle connection out of the pool: closing it is cleanup, and a failed close leaves nothing behind.
      void pooled.connection.then((c) => c.close()).catch(() => undefined);
    }
  }
}

/** Credentials are never kept as map keys: a hash tells tenants' connections apart. */
function poolKey(source: McpSourceEntity, credential?: string): string {
  const who = credential === undefined ? 'source' : createHash('sha256').update(credential).digest('hex').slice(0, 16);
  return `${source.id}:${source.updatedAt.getTime()}:${who}`;
}

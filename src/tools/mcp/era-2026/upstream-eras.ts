import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { TtlCache } from '../../../common/ttl-cache';
import { ErrorCodes, MODERN_VERSION } from '../../../common/mcp-2026';
import { AppConfig } from '../../../config/app-config';
import { Tracing } from '../../../observability/tracing/tracing';
import { McpClientPool } from '../mcp-client-pool';
import type { McpSourceEntity } from '../mcp-source.entity';
import { SsrfGuardedFetch } from '../ssrf-guarded-fetch';
import { assertUrlAllowed } from '../ssrf-policy';
import { ModernUpstream, UpstreamHttpError, UpstreamRpcError } from './modern-upstream';

export type SourceEra = 'modern' | 'legacy';

/** Clients of modern sources kept per (source, tenant credential); past this many the least recently used goes. */
const MAX_CLIENTS = 10_000;

/**
 * Which protocol era each MCP source speaks, and the clients that speak 2026-07-28 to the modern ones.
 *
 * The era is a property of the server (versioning page, "Backward Compatibility"): it is probed once per
 * source with `server/discover` and remembered until the source changes, its tools are refreshed, or a
 * request finds the assumption wrong (`forget`). A server that answers with a DiscoverResult naming
 * 2026-07-28 is modern; one that answers anything else that is not a modern error (an SDK server's
 * "not initialized", a 4xx without a JSON-RPC body, an unknown method) is legacy and keeps the SDK path.
 * A failure to reach the server at all, or a refusal of the credential (401, 403), decides nothing: nothing is
 * remembered, and the request goes on as before (an unreachable server fails it; a refusal is left to the SDK
 * path, which meets and reports it as it always did).
 * Only Streamable HTTP sources are probed; stdio and legacy SSE sources are legacy by transport.
 */
@Injectable()
export class UpstreamEras {
  /** Per source id: the era probed for the source as it was then (an edited source is probed again). */
  private readonly eras = new Map<string, { version: number; era: Promise<SourceEra>; known?: SourceEra }>();
  private readonly clients = new TtlCache<string, ModernUpstream>(Infinity, MAX_CLIENTS);

  constructor(
    private readonly pool: McpClientPool,
    private readonly guardedFetch: SsrfGuardedFetch,
    private readonly tracing: Tracing,
    private readonly config: AppConfig,
  ) {}

  /** The modern client for the source (with the tenant's credential, if any), or undefined for a legacy source. */
  async modern(source: McpSourceEntity, credential?: string): Promise<ModernUpstream | undefined> {
    if ((await this.eraOf(source, credential)) === 'legacy') return undefined;
    return this.client(source, credential);
  }

  /** The era this replica last found the source in, or undefined while it has not asked (or is asking). */
  known(source: McpSourceEntity): SourceEra | undefined {
    if (source.transport === 'stdio' || source.transport === 'sse' || !source.url) return 'legacy';
    const entry = this.eras.get(source.id);
    return entry?.version === source.updatedAt.getTime() ? entry.known : undefined;
  }

  /** Forgets what was learnt of the source: the next request probes it again. */
  forget(source: McpSourceEntity): void {
    this.eras.delete(source.id);
  }

  private async eraOf(source: McpSourceEntity, credential: string | undefined): Promise<SourceEra> {
    if (source.transport === 'stdio' || source.transport === 'sse' || !source.url) return 'legacy';
    const version = source.updatedAt.getTime();
    const known = this.eras.get(source.id);
    if (known?.version === version) return known.era;
    // Probed with the credential of whoever asks first: the era is the server's, whoever asks.
    const probe = this.probe(source, credential);
    const era = probe.then(({ era }) => era);
    const entry: { version: number; era: Promise<SourceEra>; known?: SourceEra } = { version, era };
    this.eras.set(source.id, entry);
    const forgetProbe = () => {
      if (this.eras.get(source.id)?.era === era) this.eras.delete(source.id);
    };
    // An unreachable server, or one that refused the credential, decides nothing: the next request asks again.
    probe.then(({ era: found, decided }) => {
      if (decided) entry.known = found;
      else forgetProbe();
    }, forgetProbe);
    return era;
  }

  private async probe(
    source: McpSourceEntity,
    credential: string | undefined,
  ): Promise<{ era: SourceEra; decided: boolean }> {
    await assertUrlAllowed(source.url!, {
      allowPrivateNetworks: this.config.mcp.allow_private_networks,
      allowLinkLocal: this.config.mcp.allow_link_local,
    });
    const signal = AbortSignal.timeout(this.config.mcp.discovery_timeout);
    try {
      const result = await this.client(source, credential).request('server/discover', {}, { signal });
      const versions = result.supportedVersions;
      return { era: Array.isArray(versions) && versions.includes(MODERN_VERSION) ? 'modern' : 'legacy', decided: true };
    } catch (error) {
      const status =
        error instanceof UpstreamRpcError ? error.httpStatus : error instanceof UpstreamHttpError ? error.status : 0;
      // Refused for its credential: the SDK path gets the same refusal and reports it as before.
      if (status === 401 || status === 403) return { era: 'legacy', decided: false };
      if (error instanceof UpstreamRpcError) {
        // A modern server that names its versions: modern if ours is among them (it refused something else).
        if (error.code === ErrorCodes.UnsupportedProtocolVersion) {
          const supported = (error.data as { supported?: unknown } | undefined)?.supported;
          const modern = Array.isArray(supported) && supported.includes(MODERN_VERSION);
          return { era: modern ? 'modern' : 'legacy', decided: true };
        }
        // A modern server MUST implement server/discover: any other JSON-RPC error is a legacy server's.
        return { era: 'legacy', decided: true };
      }
      if (status >= 400 && status < 500) return { era: 'legacy', decided: true };
      throw error;
    }
  }

  private client(source: McpSourceEntity, credential?: string): ModernUpstream {
    const key = `${sourceKey(source)}:${credentialKey(credential)}`;
    const known = this.clients.get(key);
    if (known) return known;
    const client = new ModernUpstream(source.name, {
      url: source.url!,
      headers: () => this.pool.headersFor(source, credential),
      // Each request carries the trace context active when it is sent (the call's span).
      fetch: this.tracing.propagatingFetch(this.guardedFetch.fetch),
      maxMessageBytes: this.config.mcp.max_result_bytes,
      maxJsonDepth: this.config.server.max_json_depth,
    });
    this.clients.set(key, client);
    return client;
  }
}

/** A source's identity as it is now: an edited source is probed again. */
function sourceKey(source: McpSourceEntity): string {
  return `${source.id}:${source.updatedAt.getTime()}`;
}

/** Credentials are never kept as map keys: a hash tells tenants' clients apart. */
function credentialKey(credential?: string): string {
  return credential === undefined ? 'source' : createHash('sha256').update(credential).digest('hex').slice(0, 16);
}

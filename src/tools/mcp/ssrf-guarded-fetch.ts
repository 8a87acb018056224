import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import * as dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { AppConfig } from '../../config/app-config';
import { refusalOf, SsrfRules } from './ssrf-policy';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A connection the SSRF policy refused at connect time; the message names the address, never a secret. */
export class SsrfRefusedError extends Error {
  readonly code = 'ssrf_refused';
}

/**
 * The fetch used for every outbound MCP (and webhook) request. The URL check before a connection resolves
 * the host on its own, so a host that answers a public address then and a private one a moment later
 * (DNS rebinding) would get through; this fetch's connections check the addresses they really use: every
 * address the lookup answers, an IP literal (which skips the lookup) before connecting to it, and the peer address
 * of the connected socket.
 */
@Injectable()
export class SsrfGuardedFetch implements OnApplicationShutdown {
  private readonly guarded: GuardedFetch;
  readonly fetch: FetchLike;

  constructor(config: AppConfig) {
    this.guarded = guardedFetch({
      allowPrivateNetworks: config.mcp.allow_private_networks,
      allowLinkLocal: config.mcp.allow_link_local,
    });
    this.fetch = this.guarded.fetch;
  }

  async onApplicationShutdown(): Promise<void> {
    // Requests in flight were drained before shutdown; streams still open (SSE) are cut.
    await this.guarded.close();
  }
}

export interface GuardedFetch {
  fetch: FetchLike;
  close(): Promise<void>;
}

/** A fetch whose every connection is checked against `rules`; for callers with rules of their own. */
export function guardedFetch(rules: SsrfRules): GuardedFetch {
  const dispatcher = new Agent({ connect: guardedConnector(rules) });
  // undici's Request/Response are the ones Node's global fetch is built on; only their declared types differ.
  const fetch = (async (url: string | URL, init?: RequestInit) => {
    try {
      return await undiciFetch(url, { ...init, dispatcher } as never);
    } catch (error) {
      // fetch reports every connection failure as "fetch failed"; the refusal itself says what happened.
      const cause = (error as Error).cause;
      throw cause instanceof SsrfRefusedError ? cause : error;
    }
  }) as unknown as FetchLike;
  return { fetch, close: () => dispatcher.destroy() };
}

function guardedConnector(rules: SsrfRules): buildConnector.connector {
  const connect = buildConnector({ lookup: guardedLookup(rules) } as buildConnector.BuildOptions);
  return (options, callback) => {
    // An IP literal skips the lookup: checked here, before any packet leaves, so a refused address is never
    // touched (no TCP handshake, no TLS hello, no timing that tells an open port from a closed one).
    const literal = options.hostname.replace(/^\[|\]$/g, '');
    const early = isIP(literal) ? refusalOf(literal, rules) : undefined;
    if (early) return callback(refusedError(literal, early), null);
    connect(options, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('no socket'), null);
      const address = socket.remoteAddress ?? '';
      const refusal = refusalOf(address, rules);
      if (!refusal) return callback(null, socket);
      socket.destroy();
      callback(refusedError(address, refusal), null);
    });
  };
}

function guardedLookup(rules: SsrfRules) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const refusal = refusalOf(address, rules);
        if (refusal) return callback(refusedError(address, refusal), []);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

function refusedError(address: string, what: string): SsrfRefusedError {
  return new SsrfRefusedError(
    `connection to ${address}, ${what}, refused by the SSRF policy (mcp.allow_link_local / mcp.allow_private_networks)`,
  );
}

import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { version } from '../../../../package.json';
import { AnswerTooLargeError, capResponse } from '../../../common/capped-stream';
import { findTooDeep } from '../../../common/json-depth';
import { encodeHeaderValue, ErrorCodes, META, MODERN_ERROR_CODES, MODERN_VERSION } from '../../../common/mcp-2026';
import { McpMessageTooLargeError } from '../mcp-connection';

/** A 4xx answer is read this far for its JSON-RPC error; an error body has no reason to be larger. */
const MAX_ERROR_BODY_BYTES = 65_536;

export interface ModernUpstreamOptions {
  url: string;
  /** The source's auth and the calling tenant's credential, read for each request (a secret file may rotate). */
  headers: () => Record<string, string>;
  /** The SSRF-guarded fetch (with trace propagation) every request goes through. */
  fetch: FetchLike;
  /** Largest message (a JSON answer, one event of a stream) read from the server (mcp.max_result_bytes). */
  maxMessageBytes: number;
  /** Deepest nesting accepted in an answer (server.max_json_depth). */
  maxJsonDepth: number;
}

export interface ModernRequestOptions {
  signal: AbortSignal;
  /** The caller's client capabilities, declared per request (empty: none). */
  capabilities?: Record<string, unknown>;
  /** Further `_meta` entries: progressToken, trace context. */
  meta?: Record<string, unknown>;
  /** Mcp-Param-* headers mirrored from the arguments (x-mcp-header). */
  headers?: Record<string, string>;
  /** Notifications the server sends on the request's stream (progress, log messages), in order. */
  onNotification?(method: string, params: Record<string, unknown>): void;
}

/** The server answered with a JSON-RPC error. `modern` when it is one by which only a modern server answers. */
export class UpstreamRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
    readonly httpStatus: number,
  ) {
    super(message);
  }

  get modern(): boolean {
    return MODERN_ERROR_CODES.has(this.code);
  }
}

/** The server answered with an HTTP error that is no JSON-RPC error: not a modern server, or not an MCP one. */
export class UpstreamHttpError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status} without a JSON-RPC error`);
  }
}

/** The server answered something that is not the response to the request. */
export class UpstreamProtocolError extends Error {}

/**
 * A client of one upstream MCP server in revision 2026-07-28 over Streamable HTTP. No SDK speaks this revision
 * yet, and what it needs is small: every request is a POST of its own, carrying its protocol version, identity
 * and capabilities in `_meta` and mirrored in the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers; the
 * answer is one JSON object or an SSE stream of notifications ending with the response. There is no session and
 * no connection to keep: the object holds only what each request is sent with.
 *
 * The server's answers are untrusted: every answer is capped while it is read (a JSON body in all, a stream per
 * event), nesting is bounded before anything walks it, and anything malformed fails this request only.
 */
export class ModernUpstream {
  private nextId = 1;

  constructor(
    readonly sourceName: string,
    private readonly options: ModernUpstreamOptions,
  ) {}

  /** Sends one request and returns its result object; a JSON-RPC error is thrown as UpstreamRpcError. */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: ModernRequestOptions,
  ): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const body = {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          ...options.meta,
          [META.protocolVersion]: MODERN_VERSION,
          [META.clientInfo]: { name: 'toolgate', version },
          [META.clientCapabilities]: options.capabilities ?? {},
        },
      },
    };
    const name = typeof params.name === 'string' ? params.name : undefined;
    const response = await this.options.fetch(this.options.url, {
      method: 'POST',
      headers: {
        ...this.options.headers(),
        ...options.headers,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': MODERN_VERSION,
        'Mcp-Method': method,
        ...(name !== undefined && { 'Mcp-Name': encodeHeaderValue(name) }),
      },
      body: JSON.stringify(body),
      signal: options.signal,
    });
    if (!response.ok) throw await this.httpError(response);
    const capped = capResponse(response, this.options.maxMessageBytes);
    try {
      const events = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
      const message = events ? await this.fromStream(capped, id, options) : this.parsed(await capped.text());
      return this.resultOf(message, id);
    } catch (error) {
      if (error instanceof AnswerTooLargeError)
        throw new McpMessageTooLargeError(this.sourceName, this.options.maxMessageBytes);
      throw error;
    } finally {
      // Whatever is left of a stream after the response (or after a failure) is not read.
      void capped.body?.cancel().catch(() => undefined);
    }
  }

  /** The final response of an SSE answer; notifications before it go to `onNotification`. */
  private async fromStream(response: Response, id: number, options: ModernRequestOptions): Promise<unknown> {
    let final: unknown;
    const pending: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => pending.push(event) });
    const decoder = new TextDecoder();
    // Each chunk ends at an event boundary (capResponse frames the stream), so `pending` holds few events.
    for await (const chunk of response.body! as unknown as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      for (const event of pending.splice(0)) {
        if (!event.data) continue;
        const message = this.parsed(event.data) as { id?: unknown; method?: unknown; params?: unknown } | null;
        if (message === null || typeof message !== 'object') continue;
        if (message.id === id && message.method === undefined) {
          final = message;
          break;
        }
        // A request on the stream is no part of this revision (input requests travel in results): ignored.
        if (typeof message.method === 'string' && message.id === undefined) {
          const params = message.params !== null && typeof message.params === 'object' ? message.params : {};
          options.onNotification?.(message.method, params as Record<string, unknown>);
        }
      }
      if (final !== undefined) return final;
    }
    throw new UpstreamProtocolError(`MCP source '${this.sourceName}' ended its answer stream without a response`);
  }

  private parsed(text: string): unknown {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new UpstreamProtocolError(`MCP source '${this.sourceName}' answered with invalid JSON`);
    }
    const tooDeep = findTooDeep(value, this.options.maxJsonDepth, 'answer');
    if (tooDeep !== undefined)
      throw new UpstreamProtocolError(
        `MCP source '${this.sourceName}' answered with JSON nested more than ${this.options.maxJsonDepth} levels deep (at '${tooDeep}')`,
      );
    return value;
  }

  private resultOf(message: unknown, id: number): Record<string, unknown> {
    const { id: answered, result, error } = (message ?? {}) as { id?: unknown; result?: unknown; error?: unknown };
    if (answered !== id)
      throw new UpstreamProtocolError(`MCP source '${this.sourceName}' answered another request than the one sent`);
    if (error !== undefined) throw rpcError(error, 200);
    if (result === null || typeof result !== 'object' || Array.isArray(result))
      throw new UpstreamProtocolError(`MCP source '${this.sourceName}' answered without a result object`);
    return result as Record<string, unknown>;
  }

  /** An HTTP error: the JSON-RPC error it carries (how a modern server refuses), or the bare status. */
  private async httpError(response: Response): Promise<Error> {
    const capped = capResponse(response, MAX_ERROR_BODY_BYTES);
    let body: unknown;
    try {
      body = JSON.parse(await capped.text());
    } catch {
      // No JSON (or too much of it): a legacy server's refusal, a proxy's page. The status says enough.
      return new UpstreamHttpError(response.status);
    }
    const error = (body as { error?: unknown } | null)?.error;
    if (error === null || typeof error !== 'object') return new UpstreamHttpError(response.status);
    return rpcError(error, response.status);
  }
}

function rpcError(error: unknown, httpStatus: number): UpstreamRpcError {
  const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  return new UpstreamRpcError(
    typeof code === 'number' ? code : ErrorCodes.InternalError,
    typeof message === 'string' ? message.slice(0, 1000) : 'error without a message',
    data,
    httpStatus,
  );
}

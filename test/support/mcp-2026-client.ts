import { parameterHeaders } from '../../src/common/mcp-param-headers';
import { readSse } from './sse';

/**
 * A small MCP client written to the 2026-07-28 schema (../shared/mcp-spec-2026-07-28/schema.ts): every
 * request is a POST carrying its protocol version, client identity and capabilities in `_meta`, with the
 * MCP-Protocol-Version, Mcp-Method and Mcp-Name headers mirroring the body, and the Mcp-Param-* headers of a
 * tool's `x-mcp-header` parameters (from the tools it has listed; on a HeaderMismatch about them it lists the
 * tools and tries once more, as the transport page advises). Answers are JSON or an SSE
 * stream of notifications ending with the response. No SDK implements this revision yet.
 */
export const PROTOCOL_VERSION = '2026-07-28';

export interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  // Results are read by the tests field by field, as any JSON.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  params?: Record<string, any>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: unknown };
}

export interface Answer {
  status: number;
  /** The final JSON-RPC response (absent when the stream was cut before it). */
  response?: JsonRpcMessage;
  /** Notifications that arrived on the request's own stream, in order. */
  notifications: JsonRpcMessage[];
}

export interface RequestOptions {
  /** Extra `_meta` entries (progressToken, log level). */
  meta?: Record<string, unknown>;
  /** The client capabilities declared on this request (none by default), e.g. `{ elicitation: {} }`. */
  capabilities?: Record<string, unknown>;
  /** Header overrides; undefined removes a header the client would send. */
  headers?: Record<string, string | undefined>;
  /** Whether to send the Mcp-Param-* headers of the tool's x-mcp-header parameters (default true). */
  mirrorParameters?: boolean;
  signal?: AbortSignal;
  onNotification?(message: JsonRpcMessage): void;
}

export class Mcp2026Client {
  private nextId = 1;
  /** Input schemas of the tools this client has listed, by name: where its x-mcp-header parameters are. */
  private readonly schemas = new Map<string, unknown>();

  constructor(
    private readonly endpoint: string,
    private readonly credentials: Record<string, string>,
    private readonly version = PROTOCOL_VERSION,
  ) {}

  discover(): Promise<Answer> {
    return this.request('server/discover', {});
  }

  listTools(cursor?: string): Promise<Answer> {
    return this.request('tools/list', cursor === undefined ? {} : { cursor });
  }

  callTool(name: string, args: Record<string, unknown>, options: RequestOptions = {}): Promise<Answer> {
    return this.call({ name, arguments: args }, options);
  }

  /**
   * The retry of a tools/call that answered `input_required` (Multi Round-Trip Requests): the same name and
   * arguments, the answers keyed as the input requests were, and the requestState echoed unchanged.
   */
  retryTool(
    name: string,
    args: Record<string, unknown>,
    inputResponses: Record<string, unknown>,
    requestState: string,
    options: RequestOptions = {},
  ): Promise<Answer> {
    return this.call({ name, arguments: args, inputResponses, requestState }, options);
  }

  /** A tools/call; refused for its Mcp-Param-* headers, the tools are listed again and it is sent once more. */
  private async call(
    params: { name: string; arguments: Record<string, unknown> } & Record<string, unknown>,
    options: RequestOptions,
  ) {
    const answer = await this.request('tools/call', params, options);
    const error = answer.response?.error;
    if (options.mirrorParameters === false || error?.code !== -32020 || !/Mcp-Param-/.test(error.message))
      return answer;
    for (let cursor: string | undefined, first = true; first || cursor; first = false)
      cursor = (await this.listTools(cursor)).response?.result?.nextCursor as string | undefined;
    return this.request('tools/call', params, options);
  }

  /** Opens subscriptions/listen; the answer settles when the stream ends. */
  listen(notifications: Record<string, unknown>, options: RequestOptions = {}): Promise<Answer> {
    return this.request('subscriptions/listen', { notifications }, options);
  }

  async request(method: string, params: Record<string, unknown>, options: RequestOptions = {}): Promise<Answer> {
    const body = {
      jsonrpc: '2.0',
      id: this.nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': this.version,
          'io.modelcontextprotocol/clientInfo': { name: 'toolgate-test-2026', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
          ...options.meta,
        },
      },
    };
    const headers: Record<string, string | undefined> = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': this.version,
      'Mcp-Method': method,
      ...(typeof params.name === 'string' && { 'Mcp-Name': headerValue(params.name) }),
      ...(method === 'tools/call' &&
        options.mirrorParameters !== false &&
        parameterHeaders(this.schemas.get(params.name as string), (params.arguments ?? {}) as Record<string, unknown>)),
      ...this.credentials,
      ...options.headers,
    };
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)) as Record<
        string,
        string
      >,
      body: JSON.stringify(body),
      signal: options.signal,
    });
    const answer: Answer = { status: response.status, notifications: [] };
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      answer.response = (await response.json()) as JsonRpcMessage;
      if (method === 'tools/list')
        for (const tool of (answer.response.result?.tools ?? []) as { name: string; inputSchema: unknown }[])
          this.schemas.set(tool.name, tool.inputSchema);
      return answer;
    }
    await readSse(response, (event) => {
      if (!event.data) return;
      const message = JSON.parse(event.data) as JsonRpcMessage;
      if (message.id !== undefined) answer.response = message;
      else {
        answer.notifications.push(message);
        options.onNotification?.(message);
      }
    }).catch((error: Error) => {
      // A stream the client cut itself ends here; anything else is the test's failure.
      if (!options.signal?.aborted) throw error;
    });
    return answer;
  }
}

/** Mcp-Name as the transport page encodes it: plain ASCII as is, anything else in the Base64 sentinel. */
export function headerValue(value: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !/^=\?base64\?.*\?=$/.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

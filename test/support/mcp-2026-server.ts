import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROTOCOL_VERSION } from './mcp-2026-client';

/**
 * An upstream MCP server speaking only revision 2026-07-28 (../shared/mcp-spec-2026-07-28/schema.ts and the
 * Streamable HTTP page), written for the tests as no SDK implements the revision yet: every request is a POST
 * standing alone with its version, identity and capabilities in `_meta`; the headers must mirror the body
 * (HeaderMismatch -32020 otherwise); `initialize` and any other version are refused with
 * UnsupportedProtocolVersion (-32022) naming 2026-07-28; every result carries `resultType`. It records each
 * request it received, so a test can see what the gateway sent.
 */

export interface ReceivedRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  // What the gateway sent, read by the tests field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  params: Record<string, any>;
}

/** What a tool sees of a tools/call. */
export interface ToolRequest {
  arguments: Record<string, unknown>;
  capabilities: Record<string, unknown>;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  /** Sends a notification on the request's stream (the answer becomes an SSE stream). */
  notify(method: string, params: Record<string, unknown>): void;
}

/** A tool's answer: a CallToolResult, an InputRequiredResult (`resultType: input_required`), or a JSON-RPC error. */
export type ToolAnswer =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: unknown }; status?: number }
  /** Raw bytes sent as the whole JSON body: for hostile answers. */
  | { raw: string };

export interface Modern2026Tool {
  definition: Record<string, unknown>;
  run(request: ToolRequest): ToolAnswer | Promise<ToolAnswer>;
}

export class Mcp2026Server {
  readonly tools = new Map<string, Modern2026Tool>();
  readonly received: ReceivedRequest[] = [];
  url = '';
  private http?: Server;

  setTool(tool: Modern2026Tool): void {
    this.tools.set(tool.definition.name as string, tool);
  }

  /** The methods received, in order. */
  get methods(): string[] {
    return this.received.map((request) => request.method);
  }

  calls(tool: string): ReceivedRequest[] {
    return this.received.filter((request) => request.method === 'tools/call' && request.params.name === tool);
  }

  async start(): Promise<this> {
    this.http = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.http!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
    return this;
  }

  async stop(): Promise<void> {
    this.http?.closeAllConnections();
    await new Promise((resolve) => this.http?.close(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'POST') {
      response.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      id?: string | number;
      method?: string;
      params?: Record<string, unknown>;
    };
    const id = body.id ?? null;
    const method = body.method ?? '';
    const params = body.params ?? {};
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    this.received.push({ method, headers: { ...request.headers }, params });
    const reply = (status: number, message: Record<string, unknown>): void => {
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(message));
    };
    const error = (status: number, code: number, message: string, data?: unknown): void =>
      reply(status, { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } });

    const version = meta['io.modelcontextprotocol/protocolVersion'];
    if (version !== PROTOCOL_VERSION)
      return error(400, -32022, 'Unsupported protocol version', {
        supported: [PROTOCOL_VERSION],
        requested: typeof version === 'string' ? version : (params.protocolVersion ?? null),
      });
    if (request.headers['mcp-protocol-version'] !== version)
      return error(400, -32020, 'Header mismatch: MCP-Protocol-Version');
    if (request.headers['mcp-method'] !== method) return error(400, -32020, 'Header mismatch: Mcp-Method');
    if (method === 'tools/call' && decoded(request.headers['mcp-name'] as string | undefined) !== params.name)
      return error(400, -32020, 'Header mismatch: Mcp-Name');

    const done = (result: Record<string, unknown>): void => reply(200, { jsonrpc: '2.0', id, result });
    switch (method) {
      case 'server/discover':
        return done({
          resultType: 'complete',
          supportedVersions: [PROTOCOL_VERSION],
          capabilities: { tools: {} },
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern-upstream', version: '1.0.0' } },
        });
      case 'tools/list':
        return done({ resultType: 'complete', tools: [...this.tools.values()].map((tool) => tool.definition) });
      case 'tools/call':
        return this.call(params, meta, id, response, error);
      default:
        return error(404, -32601, `Method not found: ${method}`);
    }
  }

  private async call(
    params: Record<string, unknown>,
    meta: Record<string, unknown>,
    id: string | number | null,
    response: ServerResponse,
    error: (status: number, code: number, message: string, data?: unknown) => void,
  ): Promise<void> {
    const tool = this.tools.get(params.name as string);
    if (!tool) return error(200, -32602, `Unknown tool: ${String(params.name)}`);
    let streaming = false;
    const write = (message: Record<string, unknown>) => {
      if (!streaming) {
        streaming = true;
        response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      }
      response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    };
    const answer = await tool.run({
      arguments: (params.arguments ?? {}) as Record<string, unknown>,
      capabilities: (meta['io.modelcontextprotocol/clientCapabilities'] ?? {}) as Record<string, unknown>,
      inputResponses: params.inputResponses as Record<string, unknown> | undefined,
      requestState: params.requestState as string | undefined,
      notify: (method, notification) => write({ jsonrpc: '2.0', method, params: notification }),
    });
    if ('raw' in answer) {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(answer.raw);
      return;
    }
    if ('error' in answer && !streaming)
      return error(answer.status ?? 200, answer.error.code, answer.error.message, answer.error.data);
    const message = {
      jsonrpc: '2.0',
      id,
      ...('error' in answer ? { error: answer.error } : { result: answer.result }),
    };
    if (streaming) {
      write(message);
      response.end();
    } else {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(message));
    }
  }
}

function decoded(value: string | undefined): string | undefined {
  const match = value === undefined ? null : /^=\?base64\?(.*)\?=$/.exec(value);
  return match ? Buffer.from(match[1], 'base64').toString('utf8') : value;
}

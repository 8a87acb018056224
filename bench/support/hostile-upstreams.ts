import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a hostile upstream sends next: the raw body of its answer (JSON text), written in 1 MB pieces. */
export interface HostileAnswer {
  body: string;
}

/**
 * A hand-written upstream on loopback whose answers are chosen per case: an MCP server speaking Streamable
 * HTTP with plain JSON answers (initialize, tools/list, tools/call), and a SearXNG `/search?format=json`. The
 * bodies are raw text so the sweep can send what no SDK would build (huge strings, deep nesting).
 */
export class HostileUpstream {
  /** The `result` of tools/list, as JSON text. */
  toolsList = '{"tools":[]}';
  /** The `result` of tools/call, as JSON text. */
  toolResult = '{"content":[{"type":"text","text":"ok"}]}';
  /** The whole SearXNG answer, as JSON text. */
  searchAnswer = '{"results":[]}';

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<HostileUpstream> {
    const holder: { upstream?: HostileUpstream } = {};
    const server = createServer((req, res) => void holder.upstream!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.upstream = new HostileUpstream(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return holder.upstream;
  }

  get mcpUrl(): string {
    return `${this.baseUrl}/mcp`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url?.startsWith('/search')) return send(res, this.searchAnswer);
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      id?: number | string;
      method: string;
      params?: { protocolVersion?: string };
    };
    if (message.id === undefined) return void res.writeHead(202).end();
    const result =
      message.method === 'initialize'
        ? JSON.stringify({
            protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: 'hostile', version: '1.0.0' },
          })
        : message.method === 'tools/list'
          ? this.toolsList
          : message.method === 'tools/call'
            ? this.toolResult
            : '{}';
    send(res, `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${result}}`);
  }
}

function send(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const piece = 1024 * 1024;
  for (let i = 0; i < body.length; i += piece) res.write(body.slice(i, i + piece));
  res.end();
}

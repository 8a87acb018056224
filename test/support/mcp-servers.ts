import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freePort } from './server-process';

const ROOT = join(__dirname, '..', '..');
export const EVERYTHING_BIN = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM_BIN = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/** `@modelcontextprotocol/server-everything` from npm, over Streamable HTTP (/mcp) or legacy SSE (/sse). */
export async function startEverything(transport: 'streamableHttp' | 'sse'): Promise<RunningServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING_BIN, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server-everything did not start')), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      if (/listening|running/i.test(chunk.toString())) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** A tools/call answer; structuredContent and _meta, when given, go out beside the text. */
export interface McpAnswer {
  text: string;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface MutableTool {
  definition: Tool;
  /** What tools/call answers; the request's Authorization header is passed for credential tests. */
  run?: (
    args: Record<string, unknown>,
    authorization: string | undefined,
    signal: AbortSignal,
  ) => McpAnswer | Promise<McpAnswer>;
}

/**
 * An MCP server written with the SDK whose tools the test changes between refreshes. Streamable HTTP with
 * sessions, so it can push notifications/tools/list_changed to connected clients.
 */
export class MutableMcpServer implements RunningServer {
  readonly tools = new Map<string, MutableTool>();
  readonly authorizations: (string | undefined)[] = [];
  /** What each tools/call carried besides its arguments: the HTTP headers and the request's _meta. */
  readonly received: { headers: Record<string, unknown>; meta: Record<string, unknown> | undefined }[] = [];
  url = '';
  private readonly sessions = new Map<string, { server: Server; transport: StreamableHTTPServerTransport }>();
  private http?: HttpServer;

  setTool(tool: MutableTool): void {
    this.tools.set(tool.definition.name, tool);
  }

  removeTool(name: string): void {
    this.tools.delete(name);
  }

  async notifyListChanged(): Promise<void> {
    await Promise.all(
      [...this.sessions.values()].map(({ server }) => server.sendToolListChanged().catch(() => undefined)),
    );
  }

  /** Forgets every session without telling the clients, as a restarted server would. */
  forgetSessions(): void {
    this.sessions.clear();
  }

  async start(): Promise<this> {
    this.http = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.http!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
    return this;
  }

  async stop(): Promise<void> {
    for (const { transport } of this.sessions.values()) await transport.close().catch(() => undefined);
    this.http?.closeAllConnections();
    await new Promise((resolve) => this.http?.close(resolve));
  }

  private async handle(request: IncomingMessage, response: import('node:http').ServerResponse): Promise<void> {
    const sessionId = request.headers['mcp-session-id'] as string | undefined;
    let session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (!session) {
      if (sessionId) {
        response.writeHead(404).end();
        return;
      }
      session = this.newSession();
    }
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    await session.transport.handleRequest(request, response, body);
  }

  private newSession(): { server: Server; transport: StreamableHTTPServerTransport } {
    const server = new Server(
      { name: 'mutable', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [...this.tools.values()].map((tool) => tool.definition),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const authorization = extra.requestInfo?.headers?.authorization as string | undefined;
      this.authorizations.push(authorization);
      this.received.push({ headers: { ...extra.requestInfo?.headers }, meta: request.params._meta });
      const tool = this.tools.get(request.params.name);
      if (!tool) return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true };
      const answer = (await tool.run?.(request.params.arguments ?? {}, authorization, extra.signal)) ?? { text: 'ok' };
      return {
        content: [{ type: 'text', text: answer.text }],
        isError: answer.isError ?? false,
        ...(answer.structuredContent && { structuredContent: answer.structuredContent }),
        ...(answer._meta && { _meta: answer._meta }),
      };
    });
    const session = { server, transport: undefined as unknown as StreamableHTTPServerTransport };
    session.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.sessions.set(id, session),
    });
    session.transport.onclose = () => {
      if (session.transport.sessionId) this.sessions.delete(session.transport.sessionId);
    };
    void server.connect(session.transport);
    return session;
  }
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** A port with nothing listening (a dead server) and a server that accepts but never answers (a hanging one). */
export async function deadUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}/mcp`;
}

export async function startHangingServer(): Promise<RunningServer> {
  const held: import('node:http').ServerResponse[] = [];
  const server = createServer((_request, response) => void held.push(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

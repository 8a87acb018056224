import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An upstream MCP server (SDK, Streamable HTTP) with one cheap tool, for latency comparisons. */
export async function startUpstream(): Promise<{ url: string; stop(): Promise<void> }> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (request, response) => {
    const id = request.headers['mcp-session-id'] as string | undefined;
    let transport = id ? transports.get(id) : undefined;
    if (!transport) {
      const server = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          {
            name: 'echo',
            description: 'Echoes text.',
            inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 100 } } },
          },
        ],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (call) => ({
        content: [{ type: 'text', text: String(call.params.arguments?.text ?? '') }],
      }));
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void transports.set(sid, created),
      });
      transport = created;
      await server.connect(created);
    }
    await transport.handleRequest(request, response, request.method === 'POST' ? await readJson(request) : undefined);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    stop: async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

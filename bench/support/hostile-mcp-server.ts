import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drained } from './fake-chat-server';

/**
 * A Streamable HTTP MCP server gone hostile, written on the wire without the SDK so that it never holds what it
 * sends: `flood` answers `bytes` bytes of text in one JSON-RPC message, written 64 KB at a time as fast as the
 * client reads; `ping` answers "pong". Stateless (no session), answers in plain JSON.
 */
export async function startHostileMcpServer(): Promise<{
  url: string;
  floodBytesSent(): number;
  stop(): Promise<void>;
}> {
  let sent = 0;
  const http = createServer((request, response) => void handle(request, response));
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST') {
      response.writeHead(request.method === 'DELETE' ? 200 : 405).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      id?: number;
      method: string;
      params?: { protocolVersion?: string; name?: string; arguments?: { bytes?: number } };
    };
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    const answer = (result: unknown) =>
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    if (message.method === 'initialize') {
      answer({
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'hostile', version: '1.0.0' },
      });
    } else if (message.method === 'tools/list') {
      answer({
        tools: [
          {
            name: 'flood',
            description: 'Answers with a lot of text.',
            inputSchema: { type: 'object', properties: { bytes: { type: 'integer' } } },
          },
          { name: 'ping', description: 'Answers pong.', inputSchema: { type: 'object', properties: {} } },
        ],
      });
    } else if (message.method === 'tools/call' && message.params?.name === 'flood') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(`{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`);
      const piece = Buffer.alloc(65_536, 'x');
      const bytes = message.params.arguments?.bytes ?? 0;
      for (let written = 0; written < bytes && !response.destroyed; written += piece.length) {
        sent += piece.length;
        if (response.write(piece)) continue;
        await drained(response);
      }
      if (!response.destroyed) response.end('"}]}}');
    } else if (message.method === 'tools/call') {
      answer({ content: [{ type: 'text', text: 'pong' }] });
    } else {
      answer({});
    }
  };
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    floodBytesSent: () => sent,
    stop: async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

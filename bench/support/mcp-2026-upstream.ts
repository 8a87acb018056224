import { createServer, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

const VERSION = '2026-07-28';

/**
 * An upstream MCP server speaking only revision 2026-07-28 with the same cheap `echo` tool as mcp-upstream.ts:
 * every POST stands alone (no session), answered with one JSON object carrying `resultType`.
 */
export async function startModernUpstream(): Promise<{ url: string; stop(): Promise<void> }> {
  const tool = {
    name: 'echo',
    description: 'Echoes text.',
    inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 100 } } },
  };
  const http = createServer((request, response) => {
    void readJson(request).then((body) => {
      const { id, method, params } = body as { id: number; method: string; params: Record<string, unknown> };
      const meta = (params?._meta ?? {}) as Record<string, unknown>;
      const answer = (status: number, message: object) =>
        response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(message));
      if (meta['io.modelcontextprotocol/protocolVersion'] !== VERSION)
        return answer(400, {
          jsonrpc: '2.0',
          id,
          error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [VERSION] } },
        });
      const results: Record<string, () => object> = {
        'server/discover': () => ({ supportedVersions: [VERSION], capabilities: { tools: {} } }),
        'tools/list': () => ({ tools: [tool] }),
        'tools/call': () => ({
          content: [{ type: 'text', text: String((params.arguments as { text?: unknown })?.text ?? '') }],
        }),
      };
      const result = results[method];
      if (!result) return answer(404, { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
      return answer(200, { jsonrpc: '2.0', id, result: { resultType: 'complete', ...result() } });
    });
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
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

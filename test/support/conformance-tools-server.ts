import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  ListToolsRequestSchema,
  ServerNotification,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { createServer, IncomingMessage, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningServer } from './mcp-servers';

/** A 1x1 red PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A WAV file of four silent 8-bit mono samples at 8 kHz. */
function silentWav(): string {
  const samples = Buffer.alloc(4, 0x80);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]).toString('base64');
}

type Send = (notification: ServerNotification) => Promise<void>;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The reference tools the server scenarios of @modelcontextprotocol/conformance call (tools-call-*), answering as
 * each scenario's description asks. The package ships the scenarios only, not a server that provides them.
 */
const REFERENCE_TOOLS: Record<string, (send: Send, progressToken?: string | number) => Promise<CallToolResult>> = {
  test_simple_text: async () => ({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }] }),
  test_image_content: async () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }),
  test_audio_content: async () => ({ content: [{ type: 'audio', data: silentWav(), mimeType: 'audio/wav' }] }),
  test_embedded_resource: async () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }),
  test_multiple_content_types: async () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        },
      },
    ],
  }),
  test_tool_with_logging: async (send) => {
    for (const [index, data] of [
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ].entries()) {
      if (index > 0) await pause(50);
      await send({ method: 'notifications/message', params: { level: 'info', data } });
    }
    return { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] };
  },
  test_error_handling: async () => ({
    isError: true,
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  }),
  test_tool_with_progress: async (send, progressToken) => {
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await pause(50);
      if (progressToken !== undefined)
        await send({ method: 'notifications/progress', params: { progressToken, progress, total: 100 } });
    }
    return { content: [{ type: 'text', text: 'Tool with progress executed successfully' }] };
  },
};

const DEFINITIONS: Tool[] = Object.keys(REFERENCE_TOOLS).map((name) => ({
  name,
  description: `Conformance reference tool ${name.replace(/_/g, ' ')}.`,
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
}));

/** A stateless Streamable HTTP MCP server (a fresh SDK server per request) offering the reference tools. */
export async function startConformanceToolsServer(): Promise<RunningServer> {
  const http: HttpServer = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    stop: async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

async function handle(request: IncomingMessage, response: import('node:http').ServerResponse): Promise<void> {
  if (request.method !== 'POST') {
    response.writeHead(405).end();
    return;
  }
  const server = new Server(
    { name: 'conformance-reference-tools', version: '1.0.0' },
    { capabilities: { tools: {}, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: DEFINITIONS }));
  server.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
    const run = REFERENCE_TOOLS[call.params.name];
    if (!run) return { isError: true, content: [{ type: 'text', text: `unknown tool ${call.params.name}` }] };
    return run((notification) => extra.sendNotification(notification), call.params._meta?.progressToken);
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  response.on('close', () => void transport.close().then(() => server.close()));
  await server.connect(transport);
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  await transport.handleRequest(request, response, JSON.parse(Buffer.concat(chunks).toString('utf8')));
}

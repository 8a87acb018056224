import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { bearer, startApp, TestApp } from './support/app';
import { memberKey, toolBody } from './support/catalog';
import { ENGINES } from './support/databases';
import { MutableMcpServer } from './support/mcp-servers';

const OLDEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[SUPPORTED_PROTOCOL_VERSIONS.length - 1];
const LONG = 'x'.repeat(90);
const WEATHER_ICON = { src: 'https://icons.example/weather.png', mimeType: 'image/png', sizes: ['48x48'] };

/** An SDK client transport that asks for another protocol version in initialize, as an older client would. */
function speaking(version: string, inner: Transport): Transport {
  const send = inner.send.bind(inner);
  inner.send = (message: JSONRPCMessage, options) => {
    if ('method' in message && message.method === 'initialize')
      message = { ...message, params: { ...message.params, protocolVersion: version } };
    return send(message, options);
  };
  return inner;
}

async function connect(baseUrl: string, key: string, version = LATEST_PROTOCOL_VERSION): Promise<Client> {
  const client = new Client({ name: 'protocol-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(speaking(version, transport));
  return client;
}

describe.each(ENGINES)('MCP gateway protocol and tool shapes (%s)', (engine) => {
  let t: TestApp;
  let upstream: MutableMcpServer;
  let key: string;
  const clients: Client[] = [];
  const open = async (version?: string) => {
    const client = await connect(t.baseUrl, key, version);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    upstream = await new MutableMcpServer().start();
    upstream.setTool({
      definition: {
        name: 'weather',
        title: 'Weather',
        description: 'Current weather of a city.',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        outputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
        annotations: { readOnlyHint: true, openWorldHint: true },
        // Only the https icon is safe to hand to clients; the script URL is left out.
        icons: [WEATHER_ICON, { src: 'javascript:alert(1)', mimeType: 'image/png' }],
      },
      run: (args) => ({
        text: `21C in ${String(args.city)}`,
        structuredContent: { celsius: 21 },
        _meta: { 'example.com/station': 'OSL' },
      }),
    });
    // Two names that normalize alike and both run past 64 characters once prefixed by the source.
    for (const name of [`${LONG}_Alpha`, `${LONG}-alpha`, `${LONG}-beta`]) {
      upstream.setTool({
        definition: { name, description: `Tool ${name}.`, inputSchema: { type: 'object', properties: {} } },
        run: () => ({ text: `ran ${name}` }),
      });
    }
    t = await startApp(engine, { config: { builtins: { file_search: { enabled: false } } } });
    await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'upstream', url: upstream.url, default_security_status: 'approved' })
      .expect(201);
    key = await memberKey(t, 'acme');
  }, 120_000);
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t?.close();
    await upstream?.stop();
  });

  const initialize = (protocolVersion: string) =>
    t.http
      .post('/mcp')
      .set(bearer(key))
      .set('Accept', 'application/json, text/event-stream')
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
      });

  /** The JSON-RPC result of an initialize answered as JSON or as one SSE event. */
  const resultOf = (res: { type: string; text: string; body: unknown }) => {
    if (res.type === 'application/json') return (res.body as { result: Record<string, unknown> }).result;
    const data = res.text.split('\n').find((line) => line.startsWith('data: '));
    return JSON.parse(data!.slice('data: '.length)).result as Record<string, unknown>;
  };

  it.each(SUPPORTED_PROTOCOL_VERSIONS)('answers initialize for protocol version %s with that version', async (v) => {
    const res = await initialize(v).buffer(true).expect(200);
    expect(resultOf(res).protocolVersion).toBe(v);
  });

  it('answers an unsupported protocol version with the latest one', async () => {
    const res = await initialize('1999-01-01').buffer(true).expect(200);
    expect(resultOf(res).protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
  });

  it.each([OLDEST_PROTOCOL_VERSION, LATEST_PROTOCOL_VERSION])(
    'serves an SDK client speaking %s: list and call',
    async (version) => {
      const client = await open(version);
      expect((client.transport as StreamableHTTPClientTransport).protocolVersion).toBe(version);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('upstream-weather');
      const result = await client.callTool({ name: 'upstream-weather', arguments: { city: 'Oslo' } });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: '21C in Oslo' }]);
    },
  );

  it('serves unique names of at most 64 characters, in code point order, each callable', async () => {
    const client = await open();
    const tools = (await client.listTools()).tools;
    const names = tools.map((tool) => tool.name);
    expect(names).toHaveLength(4);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(64);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const again = await (await open()).listTools();
    expect(again.tools.map((tool) => tool.name)).toEqual(names);
    const ran = new Set<string>();
    for (const tool of tools.filter((tool) => tool.name !== 'upstream-weather')) {
      const result = await client.callTool({ name: tool.name, arguments: {} });
      expect(result.isError).toBeFalsy();
      ran.add((result.content as { text: string }[])[0].text);
    }
    expect(ran).toEqual(new Set([`ran ${LONG}_Alpha`, `ran ${LONG}-alpha`, `ran ${LONG}-beta`]));
  });

  it('refuses to register a tool whose name would be served longer than 64 characters', async () => {
    const res = await t.http
      .post('/v1/tools')
      .set(bearer(t.adminKey))
      .send(toolBody('y'.repeat(65)))
      .expect(400);
    expect(res.body.error).toEqual(expect.objectContaining({ type: 'invalid_request_error', param: 'name' }));
  });

  it('passes output schema, annotations, icons, structured content and _meta through', async () => {
    const client = await open();
    const weather = (await client.listTools()).tools.find((tool) => tool.name === 'upstream-weather');
    expect(weather?.outputSchema).toEqual(expect.objectContaining({ required: ['celsius'] }));
    expect(weather?.annotations).toEqual(expect.objectContaining({ readOnlyHint: true, openWorldHint: true }));
    expect(weather?.icons).toEqual([WEATHER_ICON]);
    const result = await client.callTool({ name: 'upstream-weather', arguments: { city: 'Oslo' } });
    expect(result.structuredContent).toEqual({ celsius: 21 });
    expect(result._meta).toEqual({ 'example.com/station': 'OSL' });
  });

  it('answers the same call on /v1/tool_calls with content and structured content as output', async () => {
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(key))
      .send({ name: 'upstream-weather', arguments: { city: 'Oslo' } })
      .expect(200);
    expect(res.body.status).toBe('completed');
    expect(res.body.output).toEqual({
      content: [{ type: 'text', text: '21C in Oslo' }],
      structuredContent: { celsius: 21 },
    });
  });
});

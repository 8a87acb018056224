import { connect, Socket } from 'node:net';
import { join } from 'node:path';
import OpenAI from 'openai';
import { bearer, startApp, TestApp } from './support/app';
import { review } from './support/catalog';
import { ENGINES } from './support/databases';
import { FakeChatServer } from '../bench/support/fake-chat-server';
import { MutableMcpServer } from './support/mcp-servers';
import { ROOT } from './support/server-process';
import { TEST_PROVIDERS } from './support/test-providers';
import { waitFor } from './support/wait';

const FLOOD_SERVER = join(ROOT, 'test/fixtures/flood-mcp-server.js');
const MAX_RESULT_BYTES = 1_048_576;

/** What became of a raw socket the test opened: the status line it got, if any, and whether it was closed. */
interface SlowClient {
  status?: string;
  closed: boolean;
  socket: Socket;
}

/**
 * A client that sends `head` and then one byte of body every 200 ms, forever: the slow-body (slowloris) pattern.
 * With `body: false` it never finishes its headers instead.
 */
function slowClient(port: number, head: string, body = true): SlowClient {
  const client: SlowClient = { closed: false, socket: connect(port, '127.0.0.1') };
  let received = '';
  client.socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    client.status ??= received.includes('\r\n') ? received.slice(0, received.indexOf('\r\n')) : undefined;
  });
  client.socket.on('error', () => undefined);
  const trickle = setInterval(() => {
    if (!client.socket.destroyed) client.socket.write(body ? 'a' : 'X-Slow: 1\r\n');
  }, 200);
  client.socket.on('close', () => {
    clearInterval(trickle);
    client.closed = true;
  });
  client.socket.write(head);
  return client;
}

/**
 * Hostile peers on every relay the service reads from or listens on: an upstream model streaming an endless
 * line, MCP servers (HTTP and stdio) answering huge results, clients sending bodies byte by byte, and a model
 * calling tools the request ruled out or without end.
 */
describe.each(ENGINES)('hostile relays (%s)', (engine) => {
  let t: TestApp;
  let upstream: FakeChatServer;
  let mcp: MutableMcpServer;
  let client: OpenAI;
  const port = () => Number(new URL(t.baseUrl).port);
  const call = (name: string, args: Record<string, unknown> = {}) =>
    t.http.post('/v1/tool_calls').set(bearer(t.adminKey)).send({ name, arguments: args });
  const healthy = async () => expect((await t.http.get('/healthz')).status).toBe(200);

  beforeAll(async () => {
    upstream = await FakeChatServer.start();
    mcp = await new MutableMcpServer().start();
    mcp.setTool({
      definition: { name: 'flood', description: 'Answers a lot.', inputSchema: { type: 'object' } },
      run: () => ({ text: 'x'.repeat(3 * MAX_RESULT_BYTES) }),
    });
    mcp.setTool({ definition: { name: 'ping', description: 'Answers pong.', inputSchema: { type: 'object' } } });
    mcp.setTool({
      definition: {
        name: 'garbled',
        description: 'Answers bytes PostgreSQL refuses.',
        inputSchema: { type: 'object' },
      },
      run: () => ({ text: `nul\u0000 and lone \ud800 surrogate` }),
    });
    mcp.setTool({
      definition: { name: 'nul', description: 'Describes itself with a NUL\u0000.', inputSchema: { type: 'object' } },
    });
    t = await startApp(engine, {
      providers: TEST_PROVIDERS,
      config: {
        server: { headers_timeout: '1s', body_timeout: '2s', idle_timeout: '1s' },
        mcp: { max_result_bytes: MAX_RESULT_BYTES },
        mcp_servers: [{ name: 'floodio', command: process.execPath, args: [FLOOD_SERVER] }],
        builtins: { testkit: { enabled: true }, file_search: { enabled: false } },
        engine: { upstream: { url: upstream.url }, max_tool_calls: 3 },
      },
    });
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: t.adminKey, maxRetries: 0 });
    await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'flood', url: mcp.url })
      .expect(201);
    for (const name of ['flood-flood', 'flood-ping', 'flood-garbled']) {
      const listed = await t.http.get(`/v1/tools?q=${name}`).set(bearer(t.adminKey)).expect(200);
      const id = (listed.body.data as { id: string; name: string }[]).find((tool) => tool.name === name)!.id;
      await review(t, id, 'reviewed');
      await review(t, id, 'approved');
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
    await mcp?.stop();
  });
  beforeEach(() => upstream.reset());

  it('fails a response as soon as the upstream model streams a line over the cap, and stops reading it', async () => {
    upstream.script({ endlessLine: 48_000_000 });
    const response = await client.responses.create({ model: 'm', input: 'hi' });
    expect(response.status).toBe('failed');
    expect(response.error).toEqual({
      code: 'server_error',
      message: 'The upstream model sent a streamed line longer than 4000000 bytes',
    });
    await waitFor(() => upstream.abandoned === 1, 10_000, 'the upstream stream to be dropped');
    expect(upstream.endlessBytesSent).toBeLessThan(48_000_000);
    await healthy();
  });

  it.each([
    ['streamable HTTP', 'flood-flood', 'flood-ping', {}],
    ['stdio', 'floodio-flood', 'floodio-ping', { bytes: 3 * MAX_RESULT_BYTES }],
  ])(
    'fails an MCP call whose result is over mcp.max_result_bytes (%s), then calls the source again',
    async (_transport, flood, ping, args) => {
      await waitFor(async () => (await call(ping)).body.status === 'completed', 30_000, `${ping} to be callable`);
      const failed = await call(flood, args).expect(200);
      expect(failed.body.status).toBe('failed');
      expect(failed.body.error.code).toBe('result_too_large');
      expect(failed.body.error.message).toMatch(
        new RegExp(`^Tool '${flood}' failed: MCP source '\\w+' sent a message larger than ${MAX_RESULT_BYTES} bytes`),
      );
      await healthy();
      const again = await call(ping).expect(200);
      expect(again.body).toMatchObject({ status: 'completed', output: { content: [{ type: 'text' }] } });
    },
    60_000,
  );

  it('stores what upstreams send that PostgreSQL cannot hold (NUL, unpaired surrogates) repaired, never as a 500', async () => {
    const sources = await t.http.get('/v1/tools/sources/mcp/flood/health').set(bearer(t.adminKey)).expect(200);
    expect(sources.body.discovery.error).toContain("'nul'");
    const listed = await t.http.get('/v1/tools?q=flood-garbled').set(bearer(t.adminKey)).expect(200);
    const garbledId = (listed.body.data as { id: string }[])[0].id;
    await t.http.put(`/v1/tools/${garbledId}`).set(bearer(t.adminKey)).send({ audit_level: 'full' }).expect(200);

    const direct = await call('flood-garbled').expect(200);
    expect(direct.body.status).toBe('completed');
    expect(direct.body.output.content[0].text).toBe('nul\uFFFD and lone \uFFFD surrogate');

    upstream.script(
      { toolCalls: [{ name: 'echo', arguments: '{"text":"model \\u0000 \\ud800"}' }] },
      { text: 'done \u0000 \ud800' },
    );
    const response = await client.responses.create({
      model: 'm',
      input: 'go',
      tools: [{ type: 'function', name: 'echo', parameters: null, strict: null }],
    });
    expect(response.status).toBe('completed');
    const stored = await client.responses.retrieve(response.id);
    expect(stored.output_text).toBe('done \uFFFD \uFFFD');
    const audit = await t.http.get('/v1/tools/audit?tool_name=flood-garbled').set(bearer(t.adminKey)).expect(200);
    expect(audit.body.data[0]).toMatchObject({ status: 'success', output: expect.stringContaining('nul\uFFFD') });
    await healthy();
  });

  it('closes slow request bodies: unauthenticated at once (401), authenticated at server.body_timeout', async () => {
    const head = (authorization: string) =>
      'POST /v1/tool_calls HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
      `${authorization}Content-Length: 1000000\r\n\r\n{`;
    const anonymous = Array.from({ length: 30 }, () => slowClient(port(), head('')));
    const authenticated = Array.from({ length: 3 }, () =>
      slowClient(port(), head(`Authorization: Bearer ${t.adminKey}\r\n`)),
    );
    const slowHeaders = Array.from({ length: 3 }, () =>
      slowClient(port(), 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n', false),
    );
    const all = [...anonymous, ...authenticated, ...slowHeaders];
    try {
      // A generous ceiling: Node's defaults would hold every one of them for 300 s.
      await waitFor(() => all.every((slow) => slow.closed), 20_000, 'the slow sockets to be closed');
      expect(anonymous.map((slow) => slow.status)).toEqual(Array(30).fill('HTTP/1.1 401 Unauthorized'));
      expect([...authenticated, ...slowHeaders].map((slow) => slow.status)).toEqual(
        Array(6).fill('HTTP/1.1 408 Request Timeout'),
      );
    } finally {
      for (const slow of all) slow.socket.destroy();
    }
    await healthy();
  });

  it('runs at most engine.max_tool_calls server-side tools when the request sets no max_tool_calls', async () => {
    const calls = Array.from({ length: 5 }, (_, i) => ({ name: 'echo', arguments: `{"text":"${i}"}` }));
    upstream.script({ toolCalls: calls }, { text: 'done' });
    const response = await client.responses.create({
      model: 'm',
      input: 'go',
      tools: [{ type: 'function', name: 'echo', parameters: null, strict: null }],
    });
    const items = response.output.filter((item) => item.type === 'mcp_call') as { status: string; error: string }[];
    expect(items.map((item) => item.status)).toEqual(['completed', 'completed', 'completed', 'failed', 'failed']);
    expect(items[3].error).toBe('max_tool_calls (3) reached: the call was not run');
  });

  it("refuses the tool calls of a model that ignores tool_choice 'none' or a named tool", async () => {
    const weather = {
      type: 'function' as const,
      name: 'get_weather',
      parameters: { type: 'object', properties: {} },
      strict: false,
    };
    const echo = { type: 'function' as const, name: 'echo', parameters: null, strict: null };
    upstream.script(
      {
        toolCalls: [
          { name: 'echo', arguments: '{"text":"x"}' },
          { name: 'get_weather', arguments: '{}' },
        ],
      },
      { text: 'fine' },
    );
    const none = await client.responses.create({
      model: 'm',
      input: 'go',
      tools: [echo, weather],
      tool_choice: 'none',
    });
    expect(none.status).toBe('completed');
    expect(none.output.map((item) => item.type)).toEqual(['mcp_call', 'mcp_call', 'message']);
    expect(none.output.slice(0, 2)).toEqual([
      expect.objectContaining({ name: 'echo', status: 'failed', error: "tool_choice is 'none': the call was not run" }),
      expect.objectContaining({ name: 'get_weather', status: 'failed' }),
    ]);
    const audit = await t.http.get(`/v1/tools/audit?response_id=${none.id}`).set(bearer(t.adminKey)).expect(200);
    expect(audit.body.data).toEqual([]);

    upstream.script({ toolCalls: [{ name: 'echo', arguments: '{"text":"x"}' }] }, { text: 'fine' });
    const named = await client.responses.create({
      model: 'm',
      input: 'go',
      tools: [echo, weather],
      tool_choice: { type: 'function', name: 'get_weather' },
    });
    expect(named.output[0]).toMatchObject({
      type: 'mcp_call',
      name: 'echo',
      status: 'failed',
      error: expect.stringContaining("does not allow 'echo' on this turn"),
    });
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearer, startApp, TestApp } from './support/app';
import { memberKey, review } from './support/catalog';
import { ManualClock } from './support/manual-clock';
import { Answer, Mcp2026Client } from './support/mcp-2026-client';
import { Mcp2026Server, ToolRequest } from './support/mcp-2026-server';
import { MutableMcpServer } from './support/mcp-servers';

const ELICITATION = { elicitation: { form: {} } };
const UPSTREAM_STATE = 'upstream-state:step-1';

/** The upstream's greet tool: asks for the user's GitHub login by elicitation, then greets them. */
function greet(request: ToolRequest) {
  const login = (request.inputResponses?.github_login as { content?: { name?: string } } | undefined)?.content?.name;
  if (login !== undefined && request.requestState === UPSTREAM_STATE)
    return { result: { resultType: 'complete', content: [{ type: 'text', text: `Hello ${login}` }] } };
  // A server must not ask for input the client did not declare it can give (MRTR, server requirements).
  if (request.capabilities.elicitation === undefined)
    return {
      status: 400,
      error: {
        code: -32021,
        message: 'Missing required client capability: elicitation',
        data: { requiredCapabilities: { elicitation: {} } },
      },
    };
  return {
    result: {
      resultType: 'input_required',
      inputRequests: {
        github_login: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Please provide your GitHub username',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          },
        },
      },
      requestState: UPSTREAM_STATE,
    },
  };
}

/** One URL in front of two servers, sent on to whichever `target` names: a server replaced by another. */
async function switchingProxy(initial: string) {
  const proxy = { target: new URL(initial), url: '', stop: async () => undefined as void };
  const server = createServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      proxy.target,
      { method: incoming.method, headers: { ...incoming.headers, host: proxy.target.host } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  proxy.stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return proxy;
}

const result = (answer: Answer) => {
  expect(answer.response?.error).toBeUndefined();
  return answer.response!.result!;
};

describe('MCP sources speaking 2026-07-28 upstream, and the relay of their input requests', () => {
  let t: TestApp;
  let modern: Mcp2026Server;
  let legacy: MutableMcpServer;
  const keys: Record<string, string> = {};
  const clock = new ManualClock();
  const client = (tenant: string) => new Mcp2026Client(`${t.baseUrl}/mcp`, bearer(keys[tenant]));
  const auditOf = async (tool: string) =>
    (await t.http.get(`/v1/tools/audit?tool_name=${tool}&order=asc`).set(bearer(t.adminKey)).expect(200)).body.data as {
      status: string;
      tenant_id: string;
      duration_ms: number | null;
      call_id: string;
    }[];
  const approveAll = async (source: string) => {
    const tools = (await t.http.get(`/v1/tools?q=${source}&limit=100`).set(bearer(t.adminKey)).expect(200)).body
      .data as { id: string; name: string }[];
    for (const tool of tools.filter((entry) => entry.name.startsWith(`${source}-`))) {
      await review(t, tool.id, 'reviewed');
      await review(t, tool.id, 'approved');
    }
  };

  beforeAll(async () => {
    modern = await new Mcp2026Server().start();
    modern.setTool({
      definition: {
        name: 'greet',
        description: 'Greets the user by their GitHub login, which it asks for.',
        inputSchema: { type: 'object', properties: { salutation: { type: 'string' } } },
      },
      run: greet,
    });
    modern.setTool({
      definition: {
        name: 'weather',
        description: 'The weather of a region.',
        inputSchema: {
          type: 'object',
          properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, days: { type: 'integer' } },
          required: ['region'],
        },
      },
      run: (request) => {
        request.notify('notifications/progress', { progressToken: 'p', progress: 1, total: 2, message: 'looking' });
        return {
          result: {
            resultType: 'complete',
            content: [{ type: 'text', text: `sunny in ${String(request.arguments.region)}` }],
            structuredContent: { region: request.arguments.region, sky: 'sunny' },
          },
        };
      },
    });
    modern.setTool({
      definition: { name: 'deep', description: 'Answers nested too deep.', inputSchema: { type: 'object' } },
      run: () => ({
        raw: `{"jsonrpc":"2.0","id":${'1'},"result":{"resultType":"complete","content":[],"structuredContent":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}}`,
      }),
    });
    modern.setTool({
      definition: { name: 'huge', description: 'Answers over the size cap.', inputSchema: { type: 'object' } },
      run: () => ({
        result: { resultType: 'complete', content: [{ type: 'text', text: 'x'.repeat(200_000) }] },
      }),
    });
    modern.setTool({
      definition: {
        name: 'badheader',
        description: 'An x-mcp-header on a number parameter: not a valid tool for a 2026-07-28 client.',
        inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
      },
      run: () => ({ result: { resultType: 'complete', content: [] } }),
    });
    modern.setTool({
      definition: {
        name: 'summarize',
        description: "Summarizes with the client's model, asking for sampling whatever the client declared.",
        inputSchema: { type: 'object' },
      },
      run: (request) =>
        request.inputResponses?.summary
          ? { result: { resultType: 'complete', content: [{ type: 'text', text: 'summarized' }] } }
          : {
              result: {
                resultType: 'input_required',
                inputRequests: {
                  summary: {
                    method: 'sampling/createMessage',
                    params: {
                      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }],
                      maxTokens: 50,
                    },
                  },
                },
              },
            },
    });
    modern.setTool({
      definition: {
        name: 'pushy',
        description: 'Asks for input in ways the revision does not allow.',
        inputSchema: { type: 'object', properties: { mode: { type: 'string' } } },
      },
      run: ({ arguments: { mode } }) => {
        const elicit = { method: 'elicitation/create', params: { message: 'again?' } };
        const asks: Record<string, unknown> = {
          many: { inputRequests: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`q${i}`, elicit])) },
          method: { inputRequests: { run: { method: 'tools/call', params: { name: 'x' } } } },
          nothing: {},
          state: { requestState: { not: 'a string' } },
        };
        return { result: { resultType: 'input_required', ...(asks[mode as string] as object) } };
      },
    });
    modern.setTool({
      definition: { name: 'nag', description: 'Never satisfied.', inputSchema: { type: 'object' } },
      run: ({ requestState }) => ({
        result: {
          resultType: 'input_required',
          inputRequests: { more: { method: 'elicitation/create', params: { message: 'And?' } } },
          requestState: `${requestState ?? ''}+`,
        },
      }),
    });
    legacy = await new MutableMcpServer().start();
    legacy.setTool({
      definition: { name: 'ping', description: 'Answers pong.', inputSchema: { type: 'object', properties: {} } },
      run: () => ({ text: 'pong' }),
    });
    t = await startApp('postgres', {
      clock,
      config: {
        builtins: { file_search: { enabled: false } },
        mcp: { max_result_bytes: 65_536 },
        gateway: { input_request_ttl: '5m' },
      },
    });
    for (const tenant of ['acme', 'globex']) keys[tenant] = await memberKey(t, tenant);
    const registered = await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'modern', url: modern.url, default_audit_level: 'full' })
      .expect(201);
    expect(registered.body.discovery).toEqual(
      expect.objectContaining({
        status: 'ok',
        added: expect.arrayContaining(['modern-greet', 'modern-weather', 'modern-deep', 'modern-huge']),
      }),
    );
    expect(registered.body.discovery.added).not.toContain('modern-badheader');
    expect(registered.body.discovery.rejected).toEqual([
      expect.objectContaining({ tool: 'badheader', message: expect.stringContaining('x-mcp-header') }),
    ]);
    await approveAll('modern');
    await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'legacy', url: legacy.url })
      .expect(201);
    await approveAll('legacy');
  });
  afterAll(async () => {
    await t?.close();
    await modern?.stop();
    await legacy?.stop();
  });

  it('discovers a 2026-07-28 server in its own era: server/discover, then stateless requests, never initialize', async () => {
    const eraOf = async (source: string) =>
      (await t.http.get(`/v1/tools/sources/mcp/${source}/health`).set(bearer(t.adminKey)).expect(200)).body
        .protocol_era;
    expect([await eraOf('modern'), await eraOf('legacy')]).toEqual(['modern', 'legacy']);
    expect(modern.methods.slice(0, 2)).toEqual(['server/discover', 'tools/list']);
    expect(modern.methods).not.toContain('initialize');
    for (const request of modern.received) {
      expect(request.headers['mcp-protocol-version']).toBe('2026-07-28');
      expect(request.headers['mcp-method']).toBe(request.method);
      expect(request.params._meta).toEqual(
        expect.objectContaining({
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': expect.objectContaining({ name: 'toolgate' }),
          'io.modelcontextprotocol/clientCapabilities': {},
        }),
      );
      expect(request.headers['mcp-session-id']).toBeUndefined();
    }
  });

  it('calls its tools in that era with the required headers, progress and structured results', async () => {
    const events: string[] = [];
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(keys.acme))
      .send({ name: 'modern-weather', arguments: { region: 'Zürich', days: 2 } })
      .expect(200);
    expect(res.body).toEqual(
      expect.objectContaining({
        status: 'completed',
        output: {
          content: [{ type: 'text', text: 'sunny in Zürich' }],
          structuredContent: { region: 'Zürich', sky: 'sunny' },
        },
      }),
    );
    const [sent] = modern.calls('weather');
    expect(sent.headers['mcp-name']).toBe('weather');
    // x-mcp-header parameters are mirrored, a non-ASCII value in the Base64 sentinel.
    expect(sent.headers['mcp-param-region']).toBe(`=?base64?${Buffer.from('Zürich').toString('base64')}?=`);
    expect(sent.params.arguments).toEqual({ region: 'Zürich', days: 2 });
    // A 2026-07-28 client sees the upstream's progress relayed on its own stream.
    const answer = await client('acme').callTool(
      'modern-weather',
      { region: 'Bern' },
      { meta: { progressToken: 'w1' }, onNotification: (message) => events.push(message.method!) },
    );
    expect(result(answer)).toEqual(
      expect.objectContaining({ resultType: 'complete', structuredContent: { region: 'Bern', sky: 'sunny' } }),
    );
    expect(events).toEqual(['notifications/progress']);
    expect(answer.notifications[0].params).toEqual(
      expect.objectContaining({ progressToken: 'w1', progress: 1, total: 2, message: 'looking' }),
    );
  });

  it("sends each tenant's own credential to a 2026-07-28 server, as the SDK path does", async () => {
    await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'keyed', url: modern.url, auth: { type: 'none', credential_key: 'keyed_token' } })
      .expect(201);
    await approveAll('keyed');
    for (const tenant of ['acme', 'globex'])
      await t.http
        .put(`/v1/tenants/${tenant}/credentials/keyed_token`)
        .set(bearer(keys[tenant]))
        .send({ value: `${tenant}-token` })
        .expect(200);
    for (const tenant of ['acme', 'globex']) {
      const res = await t.http
        .post('/v1/tool_calls')
        .set(bearer(keys[tenant]))
        .send({ name: 'keyed-weather', arguments: { region: tenant } })
        .expect(200);
      expect(res.body.status).toBe('completed');
      const sent = modern.calls('weather').at(-1)!;
      expect([sent.params.arguments.region, sent.headers.authorization]).toEqual([tenant, `Bearer ${tenant}-token`]);
    }
  });

  it('relays input_required under its own sealed requestState, forwards the retry unwrapped, and audits one call', async () => {
    const first = await client('acme').callTool('modern-greet', {}, { capabilities: ELICITATION });
    const asked = result(first);
    expect(asked.resultType).toBe('input_required');
    expect(asked.inputRequests).toEqual({
      github_login: expect.objectContaining({
        method: 'elicitation/create',
        params: expect.objectContaining({ message: 'Please provide your GitHub username' }),
      }),
    });
    // The gateway's own state, wrapping the upstream's unseen.
    expect(typeof asked.requestState).toBe('string');
    expect(asked.requestState).not.toContain(UPSTREAM_STATE);
    expect(Buffer.from(asked.requestState.split('.').pop(), 'base64url').toString('latin1')).not.toContain('step-1');
    expect((await auditOf('modern-greet')).map((row) => row.status)).toEqual(['input_required']);
    // The upstream was told what the client can do.
    expect(modern.calls('greet')[0].params._meta['io.modelcontextprotocol/clientCapabilities']).toEqual(ELICITATION);

    const answers = { github_login: { action: 'accept', content: { name: 'octocat' } } };
    const done = await client('acme').retryTool('modern-greet', {}, answers, asked.requestState, {
      capabilities: ELICITATION,
    });
    expect(result(done)).toEqual(
      expect.objectContaining({ resultType: 'complete', content: [{ type: 'text', text: 'Hello octocat' }] }),
    );
    const retried = modern.calls('greet').at(-1)!;
    expect(retried.params.requestState).toBe(UPSTREAM_STATE);
    expect(retried.params.inputResponses).toEqual(answers);

    // One call, one record: its outcome is the final result.
    const audit = await auditOf('modern-greet');
    expect(audit).toEqual([expect.objectContaining({ status: 'success', tenant_id: 'acme' })]);

    // The state is spent: presented again, it neither runs the tool nor changes the record.
    const before = modern.calls('greet').length;
    const replay = await client('acme').retryTool('modern-greet', {}, answers, asked.requestState, {
      capabilities: ELICITATION,
    });
    expect(result(replay).isError).toBe(true);
    expect(result(replay).content[0].text).toMatch(/requestState .* already used/);
    expect(modern.calls('greet')).toHaveLength(before);
    expect((await auditOf('modern-greet')).map((row) => row.status)).toEqual(['success']);
  });

  it('refuses a tampered, foreign-tenant or other-call requestState without reaching the upstream', async () => {
    const asked = result(await client('acme').callTool('modern-greet', {}, { capabilities: ELICITATION }));
    const state = asked.requestState as string;
    const answers = { github_login: { action: 'accept', content: { name: 'mallory' } } };
    const before = modern.calls('greet').length;
    const tampered = `${state.slice(0, -6)}${state.slice(-6) === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA'}`;
    for (const [who, tool, args, presented] of [
      ['acme', 'modern-greet', {}, tampered],
      ['acme', 'modern-greet', {}, 'upstream-state:step-1'],
      ['globex', 'modern-greet', {}, state],
      ['acme', 'modern-weather', { region: 'x' }, state],
      ['acme', 'modern-greet', { salutation: 'Hi' }, state],
    ] as const) {
      const refused = await client(who).retryTool(tool, args, answers, presented, { capabilities: ELICITATION });
      expect(refused.response?.error).toEqual(
        expect.objectContaining({ code: -32602, message: expect.stringMatching(/requestState/) }),
      );
    }
    expect(modern.calls('greet')).toHaveLength(before);
    // The call still waits for its rightful retry.
    // (The test's clock stands still, so records of one moment are listed in no particular order.)
    expect((await auditOf('modern-greet')).map((row) => row.status).sort()).toEqual(['input_required', 'success']);
  });

  it('refuses a requestState once gateway.input_request_ttl has passed', async () => {
    const asked = result(await client('acme').callTool('modern-greet', {}, { capabilities: ELICITATION }));
    const answers = { github_login: { action: 'accept', content: { name: 'late' } } };
    const before = modern.calls('greet').length;
    clock.advance(5 * 60_000);
    const late = await client('acme').retryTool('modern-greet', {}, answers, asked.requestState, {
      capabilities: ELICITATION,
    });
    expect(late.response?.error).toEqual(
      expect.objectContaining({ code: -32602, message: expect.stringMatching(/requestState has expired/) }),
    );
    expect(modern.calls('greet')).toHaveLength(before);
  });

  it('fails with an error naming the input when the caller cannot carry it (2025-11-25, /v1/tool_calls)', async () => {
    const sdk = new Client({ name: 'legacy-client', version: '1.0.0' });
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: bearer(keys.acme) } }),
    );
    try {
      const answer = await sdk.callTool({ name: 'modern-greet', arguments: {} });
      expect(answer.isError).toBe(true);
      expect((answer.content as { text: string }[])[0].text).toMatch(
        /asks for elicitation input .* which this client's protocol cannot carry; use MCP 2026-07-28/,
      );
    } finally {
      await sdk.close();
    }
    const rest = await t.http
      .post('/v1/tool_calls')
      .set(bearer(keys.globex))
      .send({ name: 'modern-greet', arguments: {} })
      .expect(200);
    expect(rest.body.status).toBe('failed');
    expect(rest.body.error).toEqual({
      code: 'input_unavailable',
      message: expect.stringMatching(/elicitation input .* cannot carry; use MCP 2026-07-28/),
    });
    // A 2026-07-28 client that did not declare elicitation is told to declare it.
    const undeclared = result(await client('globex').callTool('modern-greet', {}));
    expect(undeclared.isError).toBe(true);
    expect(undeclared.content[0].text).toMatch(/did not declare .* elicitation/);
    const globexRows = (await auditOf('modern-greet')).filter((row) => row.tenant_id === 'globex');
    expect(globexRows.map((row) => row.status)).toEqual(['error', 'error']);
  });

  it('relays only the input requests a client declared it can answer, and without upstream state as well', async () => {
    const undeclared = result(await client('acme').callTool('modern-summarize', {}, { capabilities: ELICITATION }));
    expect(undeclared.isError).toBe(true);
    expect(undeclared.content[0].text).toMatch(/asks for sampling .* did not declare .* declare sampling/);
    const sampling = { sampling: {} };
    const asked = result(await client('acme').callTool('modern-summarize', {}, { capabilities: sampling }));
    expect(asked).toEqual(
      expect.objectContaining({
        resultType: 'input_required',
        inputRequests: { summary: expect.objectContaining({ method: 'sampling/createMessage' }) },
        requestState: expect.any(String),
      }),
    );
    const reply = { role: 'assistant', content: { type: 'text', text: 'short' }, model: 'm', stopReason: 'endTurn' };
    const done = await client('acme').retryTool('modern-summarize', {}, { summary: reply }, asked.requestState, {
      capabilities: sampling,
    });
    expect(result(done).content).toEqual([{ type: 'text', text: 'summarized' }]);
    // The upstream sent no state of its own, so none goes back to it.
    const retried = modern.calls('summarize').at(-1)!;
    expect(retried.params.requestState).toBeUndefined();
    expect(retried.params.inputResponses).toEqual({ summary: reply });
  });

  it('ends a call whose tool keeps asking for input after 8 rounds, on its one audit record', async () => {
    const nag = client('acme');
    let state: string | undefined;
    for (let round = 1; round <= 8; round += 1) {
      const answer = result(
        state === undefined
          ? await nag.callTool('modern-nag', {}, { capabilities: ELICITATION })
          : await nag.retryTool('modern-nag', {}, { more: { action: 'accept', content: {} } }, state, {
              capabilities: ELICITATION,
            }),
      );
      expect(answer.resultType).toBe('input_required');
      state = answer.requestState;
    }
    const last = result(
      await nag.retryTool('modern-nag', {}, { more: { action: 'accept', content: {} } }, state!, {
        capabilities: ELICITATION,
      }),
    );
    expect(last.isError).toBe(true);
    expect(last.content[0].text).toMatch(/asked for input more than 8 times/);
    // Each round sent the upstream its own latest state back.
    expect(modern.calls('nag').map((call) => call.params.requestState)).toEqual([
      undefined,
      ...Array.from({ length: 8 }, (_, i) => '+'.repeat(i + 1)),
    ]);
    expect((await auditOf('modern-nag')).map((row) => row.status)).toEqual(['error']);
  });

  it.each([
    ['more input requests than a client can be asked', 'many', /more than 32 input requests/],
    ['a request the revision does not allow', 'method', /whose method is not one of elicitation\/create/],
    ['neither requests nor state', 'nothing', /neither inputRequests nor requestState/],
    ['a state that is not a string', 'state', /requestState that is not a string/],
  ])('fails the call when the upstream asks for input with %s', async (_case, mode, message) => {
    const answer = result(await client('acme').callTool('modern-pushy', { mode }, { capabilities: ELICITATION }));
    expect(answer.isError).toBe(true);
    expect(answer.content[0].text).toMatch(message);
  });

  it('fails one call, not the process, on an upstream answer nested too deep or over the size cap', async () => {
    const deep = await t.http.post('/v1/tool_calls').set(bearer(keys.acme)).send({ name: 'modern-deep' }).expect(200);
    expect(deep.body.status).toBe('failed');
    expect(deep.body.error.message).toMatch(/nested more than \d+ levels deep/);
    const huge = await t.http.post('/v1/tool_calls').set(bearer(keys.acme)).send({ name: 'modern-huge' }).expect(200);
    expect(huge.body.status).toBe('failed');
    expect(huge.body.error).toEqual(
      expect.objectContaining({ code: 'result_too_large', message: expect.stringContaining('65536 bytes') }),
    );
    const after = await t.http
      .post('/v1/tool_calls')
      .set(bearer(keys.acme))
      .send({ name: 'modern-weather', arguments: { region: 'Basel' } })
      .expect(200);
    expect(after.body.status).toBe('completed');
  });

  it('asks the era again when a 2026-07-28 request is refused unread, and sends the call in the era found', async () => {
    const forecast = {
      name: 'forecast',
      description: 'Tomorrow, in one word.',
      inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } } },
    };
    const before = await new Mcp2026Server().start();
    before.setTool({
      definition: forecast,
      run: () => ({ result: { resultType: 'complete', content: [{ type: 'text', text: 'modern: rain' }] } }),
    });
    const after = await new MutableMcpServer().start();
    after.setTool({ definition: forecast, run: () => ({ text: 'legacy: rain' }) });
    const proxy = await switchingProxy(before.url);
    try {
      await t.http
        .post('/v1/tools/sources/mcp')
        .set(bearer(t.adminKey))
        .send({ name: 'moving', url: proxy.url })
        .expect(201);
      await approveAll('moving');
      const call = () =>
        t.http
          .post('/v1/tool_calls')
          .set(bearer(keys.acme))
          .send({ name: 'moving-forecast', arguments: {} })
          .expect(200);
      expect((await call()).body.output).toEqual({ content: [{ type: 'text', text: 'modern: rain' }] });
      // The server behind the URL is replaced by a 2025-only one, which refuses a request without a session.
      proxy.target = new URL(after.url);
      expect((await call()).body.output).toEqual({ content: [{ type: 'text', text: 'legacy: rain' }] });
      expect(after.received).toHaveLength(1);
      expect(before.calls('forecast')).toHaveLength(1);
    } finally {
      await proxy.stop();
      await before.stop();
      await after.stop();
    }
  });

  it('falls back to the SDK path for a 2025-only server, after a refresh probes it again too', async () => {
    const res = await t.http.post('/v1/tool_calls').set(bearer(keys.acme)).send({ name: 'legacy-ping' }).expect(200);
    expect(res.body).toEqual(
      expect.objectContaining({ status: 'completed', output: { content: [{ type: 'text', text: 'pong' }] } }),
    );
    const refreshed = await t.http.post('/v1/tools/sources/mcp/legacy/refresh').set(bearer(t.adminKey));
    expect(refreshed.body.discovery ?? refreshed.body).toEqual(expect.objectContaining({ status: 'ok' }));
    const again = await t.http.post('/v1/tool_calls').set(bearer(keys.acme)).send({ name: 'legacy-ping' }).expect(200);
    expect(again.body.status).toBe('completed');
    // Both calls reached the 2025 server through its SDK session, in its own protocol version.
    expect(legacy.received).toHaveLength(2);
    for (const call of legacy.received) {
      expect(call.headers['mcp-session-id']).toEqual(expect.any(String));
      expect(call.headers['mcp-protocol-version']).not.toBe('2026-07-28');
      expect(call.meta?.['io.modelcontextprotocol/protocolVersion']).toBeUndefined();
    }
  });
});

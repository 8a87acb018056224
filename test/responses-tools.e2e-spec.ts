import OpenAI, { toFile } from 'openai';
import { randomToken } from '../src/common/ids';
import { bearer, startApp, TestApp } from './support/app';
import { review } from './support/catalog';
import { createTestDatabase, ENGINES } from './support/databases';
import { FakeChatServer } from '../bench/support/fake-chat-server';
import { FakeSearchServer, hits } from './support/fake-search-server';
import { MutableMcpServer } from './support/mcp-servers';
import { buildService, freePort, ServerProcess } from './support/server-process';
import { readSse } from './support/sse';
import { TEST_PROVIDERS } from './support/test-providers';
import { waitFor } from './support/wait';

/**
 * /v1/responses with server-side tool types (file_search over a real vector store, web_search, an MCP
 * source), tool budgets, background runs, cancellation and disconnects, through the official `openai` SDK.
 */
describe.each(ENGINES)('/v1/responses with server-side tools (%s)', (engine) => {
  let t: TestApp;
  let upstream: FakeChatServer;
  let searxng: FakeSearchServer;
  let mcp: MutableMcpServer;
  let client: OpenAI;
  let storeId: string;

  const auditOf = async (responseId: string) => {
    const res = await t.http.get(`/v1/tools/audit?response_id=${responseId}`).set(bearer(t.adminKey)).expect(200);
    const records = res.body.data as { response_id?: string; tool_name: string; status: string }[];
    expect(records.every((record) => record.response_id === responseId)).toBe(true);
    return records;
  };
  const echoTool = { type: 'function' as const, name: 'echo', parameters: null, strict: null };

  beforeAll(async () => {
    upstream = await FakeChatServer.start();
    searxng = await FakeSearchServer.serving('searxng', hits('searx', 3));
    mcp = await new MutableMcpServer().start();
    mcp.setTool({
      definition: {
        name: 'lookup',
        description: 'Looks a customer up.',
        inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
      },
      run: (args) => ({ text: `customer ${String(args.name)}: gold tier` }),
    });
    mcp.setTool({ definition: { name: 'erase', description: 'Erases a customer.', inputSchema: { type: 'object' } } });
    t = await startApp(engine, {
      providers: TEST_PROVIDERS,
      config: {
        builtins: {
          testkit: { enabled: true },
          file_search: { poll_interval: '100ms' },
          web_search: { enabled: true, search_engine_url: searxng.url },
        },
        engine: { upstream: { url: upstream.url }, background_lease: '1s' },
      },
    });
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: t.adminKey, maxRetries: 0 });

    const file = await client.files.create({
      file: await toFile(
        Buffer.from('Travel policy: employees travel by train for trips under four hours.'),
        'policy.txt',
      ),
      purpose: 'assistants',
    });
    const store = await client.vectorStores.create({ name: 'policies' });
    await client.vectorStores.files.createAndPoll(store.id, { file_id: file.id }, { pollIntervalMs: 50 });
    storeId = store.id;

    await t.http.post('/v1/tools/sources/mcp').set(bearer(t.adminKey)).send({ name: 'crm', url: mcp.url }).expect(201);
    for (const name of ['crm-lookup', 'crm-erase']) {
      const listed = await t.http.get(`/v1/tools?q=${name}`).set(bearer(t.adminKey)).expect(200);
      const id = (listed.body.data as { id: string; name: string }[]).find((tool) => tool.name === name)!.id;
      await review(t, id, 'reviewed');
      await review(t, id, 'approved');
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
    await searxng?.close();
    await mcp?.stop();
  });
  beforeEach(() => upstream.reset());

  it('searches a vector store with file_search_call items, results shown when included', async () => {
    upstream.script(
      { toolCalls: [{ name: 'file_search', arguments: '{"query":"train travel"}' }] },
      { text: 'By train.' },
    );
    const response = await client.responses.create({
      model: 'any',
      input: 'How do we travel?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId] }],
      include: ['file_search_call.results'],
    });
    expect(response.output_text).toBe('By train.');
    const call = response.output[0];
    expect(call).toEqual({
      id: expect.stringMatching(/^fs_/),
      type: 'file_search_call',
      status: 'completed',
      queries: ['train travel'],
      results: [
        {
          file_id: expect.stringMatching(/^file-/),
          filename: 'policy.txt',
          score: expect.any(Number),
          text: expect.stringContaining('employees travel by train'),
          attributes: null,
        },
      ],
    });
    // The model sees a query-only function; the vector stores are the request's choice.
    expect(upstream.requests[0].body.tools?.[0].function.parameters).toMatchObject({ required: ['query'] });
    expect(upstream.requests[1].body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: call.id,
      content: expect.stringContaining('employees travel by train'),
    });
    expect((await auditOf(response.id)).map((record) => [record.tool_name, record.status])).toEqual([
      ['file_search', 'success'],
    ]);
    const plain = await client.responses.retrieve(response.id);
    expect(plain.output[0]).toMatchObject({ type: 'file_search_call', results: null });
    const included = await client.responses.retrieve(response.id, { include: ['file_search_call.results'] });
    expect(included.output[0]).toEqual(call);
  });

  it('streams file_search and web_search call events', async () => {
    upstream.script(
      {
        toolCalls: [
          { name: 'file_search', arguments: '{"query":"train"}' },
          { name: 'web_search', arguments: '{"query":"rail strikes"}' },
        ],
      },
      { text: 'ok' },
    );
    const stream = await client.responses.create({
      model: 'any',
      input: 'Search both',
      stream: true,
      tools: [{ type: 'file_search', vector_store_ids: [storeId] }, { type: 'web_search' }],
    });
    const types: string[] = [];
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.completed') final = event.response;
    }
    // Both calls start in order; they run in parallel, so their completions may come in either order.
    expect(types.slice(0, 8)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.file_search_call.in_progress',
      'response.file_search_call.searching',
      'response.output_item.added',
      'response.web_search_call.in_progress',
      'response.web_search_call.searching',
    ]);
    expect(types.slice(8, 12).sort()).toEqual([
      'response.file_search_call.completed',
      'response.output_item.done',
      'response.output_item.done',
      'response.web_search_call.completed',
    ]);
    expect(final!.output[1]).toMatchObject({
      type: 'web_search_call',
      status: 'completed',
      action: {
        type: 'search',
        query: 'rail strikes',
        sources: hits('searx', 3).map((hit) => ({ type: 'url', url: hit.url })),
      },
    });
    expect((await auditOf(final!.id)).map((record) => record.tool_name).sort()).toEqual(['file_search', 'web_search']);
  });

  it('offers the allowed tools of an MCP source and runs them as mcp_call items', async () => {
    upstream.script({ toolCalls: [{ name: 'crm-lookup', arguments: '{"name":"Ada"}' }] }, { text: 'Ada is gold.' });
    const response = await client.responses.create({
      model: 'any',
      input: 'Who is Ada?',
      tools: [{ type: 'mcp', server_label: 'crm', allowed_tools: ['lookup'], require_approval: 'never' }],
    });
    expect(upstream.requests[0].body.tools?.map((tool) => tool.function.name)).toEqual(['crm-lookup']);
    expect(response.output[0]).toEqual({
      id: expect.stringMatching(/^mcp_/),
      type: 'mcp_call',
      status: 'completed',
      server_label: 'crm',
      name: 'crm-lookup',
      arguments: '{"name":"Ada"}',
      output: 'customer Ada: gold tier',
      error: null,
    });
    expect(await auditOf(response.id)).toEqual([
      expect.objectContaining({ tool_name: 'crm-lookup', status: 'success' }),
    ]);
  });

  it('refuses MCP approvals and unknown sources clearly', async () => {
    const create = (tool: Record<string, unknown>) =>
      t.http
        .post('/v1/responses')
        .set(bearer(t.adminKey))
        .send({ model: 'm', input: 'hi', tools: [tool] })
        .expect(400);
    expect((await create({ type: 'mcp', server_label: 'crm', require_approval: 'always' })).body.error).toMatchObject({
      param: 'tools[0].require_approval',
      code: 'unsupported_value',
    });
    expect((await create({ type: 'mcp', server_label: 'nope' })).body.error).toMatchObject({
      param: 'tools[0].server_label',
    });
    expect(
      (await create({ type: 'mcp', server_label: 'crm', allowed_tools: ['lookup', 'drop_tables'] })).body.error,
    ).toMatchObject({
      param: 'tools[0].allowed_tools[1]',
      message: "The MCP source 'crm' has no tool 'drop_tables' this caller may use; it has crm-erase, crm-lookup",
    });
    expect(
      (await create({ type: 'mcp', server_label: 'crm', server_url: 'http://169.254.169.254/' })).body.error,
    ).toMatchObject({
      param: 'tools[0].server_url',
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('stops running server-side tools after max_tool_calls and offers them no more', async () => {
    upstream.script(
      {
        toolCalls: [
          { name: 'echo', arguments: '{"text":"a"}' },
          { name: 'echo', arguments: '{"text":"b"}' },
        ],
      },
      { text: 'enough' },
    );
    // The SDK's request type does not list max_tool_calls (its Response type does); the API takes it.
    const maxToolCalls = { max_tool_calls: 1 } as object;
    const response = await client.responses.create({ model: 'm', input: 'go', tools: [echoTool], ...maxToolCalls });
    const calls = response.output.filter((item) => item.type === 'mcp_call') as {
      status: string;
      error: string | null;
    }[];
    expect(calls.map((call) => call.status)).toEqual(['completed', 'failed']);
    expect(calls[1].error).toContain('max_tool_calls (1) reached');
    expect(upstream.requests[1].body.tools).toBeUndefined();
    expect(await auditOf(response.id)).toHaveLength(1);
  });

  it('forces the tool of tool_choice on the first turn only, and sends none as none', async () => {
    upstream.script({ toolCalls: [{ name: 'echo', arguments: '{}' }] }, { text: 'done' });
    await client.responses.create({
      model: 'm',
      input: 'go',
      tools: [echoTool],
      tool_choice: { type: 'function', name: 'echo' },
      parallel_tool_calls: false,
    });
    expect(upstream.requests.map((request) => request.body.tool_choice)).toEqual([
      { type: 'function', function: { name: 'echo' } },
      'auto',
    ]);
    expect(upstream.requests[0].body.parallel_tool_calls).toBe(false);
    upstream.script({ text: 'no tools' });
    await client.responses.create({ model: 'm', input: 'go', tools: [echoTool], tool_choice: 'none' });
    expect(upstream.requests[2].body.tool_choice).toBe('none');
  });

  it('runs a background response to completion, polled with retrieve', async () => {
    upstream.script({ toolCalls: [{ name: 'echo', arguments: '{"text":"bg"}' }] }, { text: 'background done' });
    const queued = await client.responses.create({ model: 'm', input: 'go', tools: [echoTool], background: true });
    expect(queued.status).toBe('queued');
    expect(queued.background).toBe(true);
    let current = queued;
    await waitFor(async () => {
      current = await client.responses.retrieve(queued.id);
      return current.status === 'completed';
    });
    expect(current.output_text).toBe('background done');
    expect(await auditOf(queued.id)).toHaveLength(1);
  });

  it('cancels a running background response, aborting the upstream request', async () => {
    upstream.script({ hang: true, text: 'thinking' });
    const queued = await client.responses.create({ model: 'm', input: 'go', background: true });
    await waitFor(() => upstream.requests.length === 1);
    const cancelled = await client.responses.cancel(queued.id);
    expect(cancelled).toMatchObject({ id: queued.id, status: 'cancelled' });
    await waitFor(() => upstream.abandoned === 1, 5000, 'the upstream request to be aborted');
    expect((await client.responses.retrieve(queued.id)).status).toBe('cancelled');
    // Cancelling again answers the same; a response that was not in the background cannot be cancelled.
    expect((await client.responses.cancel(queued.id)).status).toBe('cancelled');
    upstream.script({ text: 'fg' });
    const foreground = await client.responses.create({ model: 'm', input: 'go' });
    await expect(client.responses.cancel(foreground.id)).rejects.toMatchObject({ status: 400 });
  });

  it('cancels a streamed response when the client disconnects', async () => {
    upstream.script({ hang: true, text: 'streaming...' });
    const abort = new AbortController();
    const res = await fetch(`${t.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { ...bearer(t.adminKey), 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'm', input: 'go', stream: true }),
      signal: abort.signal,
    });
    let id = '';
    await readSse(res, (event) => {
      const data = JSON.parse(event.data) as { type: string; response?: { id: string } };
      if (data.type === 'response.created') id = data.response!.id;
      if (data.type === 'response.output_text.delta') abort.abort();
    }).catch(() => undefined);
    await waitFor(() => upstream.abandoned === 1, 5000, 'the upstream request to be aborted');
    await waitFor(async () => (await client.responses.retrieve(id)).status === 'cancelled');
    const stored = await client.responses.retrieve(id);
    expect(stored.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
  });
});

describe('/v1/responses across restarts and without an upstream', () => {
  it('answers 503 naming the setting while engine.upstream.url is unset', async () => {
    const t = await startApp('postgres', { config: { builtins: { file_search: { enabled: false } } } });
    try {
      const res = await t.http
        .post('/v1/responses')
        .set(bearer(t.adminKey))
        .send({ model: 'm', input: 'hi' })
        .expect(503);
      expect(res.body.error).toMatchObject({
        code: 'engine_not_configured',
        message: expect.stringContaining('engine.upstream.url'),
      });
    } finally {
      await t.close();
    }
  });

  it('does not leave a background response in progress when its replica stops mid-run', async () => {
    const upstream = await FakeChatServer.start();
    const database = await createTestDatabase('postgres');
    const config = {
      builtins: { file_search: { enabled: false } },
      engine: { upstream: { url: upstream.url }, background_lease: '1s' },
    };
    try {
      const first = await startApp('postgres', { database, config });
      upstream.script({ hang: true });
      const client = new OpenAI({ baseURL: `${first.baseUrl}/v1`, apiKey: first.adminKey, maxRetries: 0 });
      const queued = await client.responses.create({ model: 'm', input: 'go', background: true });
      await waitFor(() => upstream.requests.length === 1);
      await first.close();

      const second = await startApp('postgres', { database, config, adminKey: first.adminKey });
      try {
        const again = new OpenAI({ baseURL: `${second.baseUrl}/v1`, apiKey: first.adminKey, maxRetries: 0 });
        let current = await again.responses.retrieve(queued.id);
        await waitFor(async () => {
          current = await again.responses.retrieve(queued.id);
          return current.status === 'failed';
        }, 10_000);
        expect(current.error).toEqual({
          code: 'server_error',
          message: 'The service stopped while the response was running; create it again',
        });
      } finally {
        await second.close();
      }
    } finally {
      await upstream.close();
      await database.drop();
    }
  });

  it('marks a response failed once the lease of a killed replica runs out', async () => {
    await buildService();
    const upstream = await FakeChatServer.start();
    const database = await createTestDatabase('postgres');
    const adminKey = `tg_test_admin_${randomToken(24)}`;
    const config = {
      builtins: { file_search: { enabled: false } },
      engine: { upstream: { url: upstream.url }, background_lease: '1s' },
    };
    let server: ServerProcess | undefined;
    try {
      server = await ServerProcess.start(
        {
          PORT: String(await freePort()),
          HOST: '127.0.0.1',
          DATABASE_URL: database.url!,
          TOOLGATE_DATA_DIR: database.dataDir,
          ADMIN_API_KEY: adminKey,
          LOG_LEVEL: 'silent',
          TOOLGATE_BUILTINS__FILE_SEARCH__ENABLED: 'false',
          TOOLGATE_SECRETS__ENCRYPTION_KEY: 'dG9vbGdhdGUtdGVzdC1rZXktMzItYnl0ZXMtbG9uZyE=',
          TOOLGATE_ENGINE__UPSTREAM__URL: upstream.url,
          TOOLGATE_ENGINE__BACKGROUND_LEASE: '1s',
        },
        database.dataDir,
      );
      upstream.script({ hang: true });
      const killed = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: adminKey, maxRetries: 0 });
      const queued = await killed.responses.create({ model: 'm', input: 'go', background: true });
      await waitFor(() => upstream.requests.length === 1);
      expect((await killed.responses.retrieve(queued.id)).status).toBe('in_progress');
      await server.kill();

      const second = await startApp('postgres', { database, config, adminKey });
      try {
        const again = new OpenAI({ baseURL: `${second.baseUrl}/v1`, apiKey: adminKey, maxRetries: 0 });
        let current = await again.responses.retrieve(queued.id);
        await waitFor(async () => {
          current = await again.responses.retrieve(queued.id);
          return current.status === 'failed';
        }, 10_000);
        expect(current.error).toEqual({
          code: 'server_error',
          message: 'The service stopped while the response was running; create it again',
        });
      } finally {
        await second.close();
      }
    } finally {
      await server?.kill();
      await upstream.close();
      await database.drop();
    }
  }, 240_000);
});

import { bearer, startApp, TestApp } from './support/app';
import { readSse } from './support/sse';
import { observed, TEST_PROVIDERS } from './support/test-providers';
import { metricValue, waitFor } from './support/wait';
import { assignedBundle } from './support/catalog';

describe('POST /v1/tool_calls', () => {
  let t: TestApp;
  const call = (body: object) => t.http.post('/v1/tool_calls').set(bearer(t.adminKey)).send(body);
  const post = (body: object, signal?: AbortSignal) =>
    fetch(`${t.baseUrl}/v1/tool_calls`, {
      method: 'POST',
      headers: { ...bearer(t.adminKey), 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  const cancelledCount = async (tool: string) =>
    metricValue((await t.http.get('/metrics')).text, 'toolgate_tool_calls_total', {
      tool_name: tool,
      status: 'cancelled',
    }) ?? 0;

  beforeAll(async () => {
    t = await startApp('postgres', {
      providers: TEST_PROVIDERS,
      config: {
        builtins: { testkit: { enabled: true }, file_search: { enabled: false } },
        tools: { default_timeout: '5s', max_timeout: '1500ms' },
      },
    });
  });
  afterAll(() => t?.close());

  it('runs a tool and answers a completed tool_call', async () => {
    const res = await call({
      name: 'echo',
      arguments: { text: 'hello' },
      call_id: 'call_model_1',
      response_id: 'resp_1',
    }).expect(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^call_[A-Za-z0-9]{24}$/),
      object: 'tool_call',
      call_id: 'call_model_1',
      name: 'echo',
      status: 'completed',
      output: { echo: { text: 'hello' }, tenant: 'default', call_id: 'call_model_1' },
      error: null,
      duration_ms: expect.any(Number),
      created_at: expect.any(Number),
      response_id: 'resp_1',
    });
  });

  it('accepts arguments as a JSON string, as models emit them', async () => {
    const res = await call({ name: 'echo', arguments: '{"text":"from a string"}' }).expect(200);
    expect(res.body.output.echo).toEqual({ text: 'from a string' });
    expect(res.body.call_id).toBe(res.body.id);
  });

  it('gives the tool the caller identity: tenant, subject and agent profile', async () => {
    const key = await t.http
      .post('/v1/admin/api_keys')
      .set(bearer(t.adminKey))
      .send({ name: 'acme agent', tenant_id: 'acme' })
      .expect(201);
    // A named agent profile sees only the bundles assigned to it.
    const echo = await t.http.get('/v1/tools?q=echo').set(bearer(t.adminKey)).expect(200);
    await assignedBundle(t, 'support tools', [echo.body.data[0].id], { tenant_id: 'acme', agent_profile: 'support' });
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(key.body.secret))
      .set('X-Agent-Profile', 'support')
      .send({ name: 'echo', arguments: {} })
      .expect(200);
    expect(res.body.output.tenant).toBe('acme');
    expect(observed.lastContext).toEqual(
      expect.objectContaining({ tenantId: 'acme', userId: key.body.id, agentProfile: 'support' }),
    );
  });

  it('reports invalid JSON arguments', async () => {
    const res = await call({ name: 'echo', arguments: '{"text": ' }).expect(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ type: 'invalid_request_error', param: 'arguments', code: 'invalid_arguments' }),
    );
    expect(res.body.error.message).toMatch(/^arguments is not valid JSON/);
  });

  it('lists every schema violation with its JSON path in one message', async () => {
    const res = await call({ name: 'strict', arguments: { user: { age: -1 }, tags: ['a', 'c'], extra: 1 } }).expect(
      400,
    );
    const { message, param, code } = res.body.error;
    expect({ param, code }).toEqual({ param: 'arguments', code: 'invalid_arguments' });
    expect(message).toContain("Invalid arguments for tool 'strict'");
    expect(message).toContain('$.user.name is required');
    expect(message).toContain('$.user.age must be >= 0');
    expect(message).toContain('$.tags[1] must be equal to one of the allowed values: "a", "b"');
    expect(message).toContain('$.extra is not an allowed property');
  });

  it('turns a result that breaks the declared result schema into a failed call', async () => {
    const res = await call({ name: 'strict', arguments: { user: { name: 'x' }, reply: { ok: 'yes' } } }).expect(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error.code).toBe('invalid_result');
    expect(res.body.error.message).toContain('$.ok must be boolean');
    const good = await call({ name: 'strict', arguments: { user: { name: 'x' } } }).expect(200);
    expect(good.body).toEqual(expect.objectContaining({ status: 'completed', output: { ok: true } }));
  });

  it('answers an unknown name with the closest names', async () => {
    const res = await call({ name: 'ecko' }).expect(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({
        param: 'name',
        code: 'unknown_tool',
        message: "Unknown tool 'ecko'. Did you mean 'echo'?",
      }),
    );
    const far = await call({ name: 'completely_different' }).expect(400);
    expect(far.body.error.message).toMatch(
      /^Unknown tool 'completely_different'. Available tools: big, echo, explode, /,
    );
  });

  it('refuses malformed requests with the offending field', async () => {
    expect((await call({ arguments: {} }).expect(400)).body.error.param).toBe('name');
    expect((await call({ name: 'echo', arguments: [1] }).expect(400)).body.error.param).toBe('arguments');
    expect((await call({ name: 'echo', timeout_ms: 0 }).expect(400)).body.error.param).toBe('timeout_ms');
    expect((await call({ name: 'echo', surprise: true }).expect(400)).body.error.param).toBe('surprise');
  });

  it('makes a throwing tool a failed call, not a 500', async () => {
    const res = await call({ name: 'explode' }).expect(200);
    expect(res.body).toEqual(
      expect.objectContaining({
        status: 'failed',
        output: null,
        error: { code: 'tool_error', message: "Tool 'explode' failed: kaboom" },
      }),
    );
  });

  it('carries an error result of the tool as a failed call with its message', async () => {
    const res = await call({ name: 'echo', arguments: { text: 'fail' } }).expect(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error).toEqual({ code: 'tool_error', message: 'echo refused to echo "fail"' });
    expect(res.body.output).toEqual({ error: { message: 'echo refused to echo "fail"' } });
  });

  it('times out a slow tool and fires its abort signal', async () => {
    const res = await call({
      name: 'slow',
      arguments: { ms: 10_000 },
      timeout_ms: 100,
      call_id: 'call_slow_timeout',
    }).expect(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error).toEqual({ code: 'timeout', message: "Tool 'slow' did not finish within 100 ms" });
    await waitFor(() => observed.aborted.includes('call_slow_timeout'), 2000, 'the tool to see its abort signal');
  });

  it('caps a requested timeout at tools.max_timeout, even for a tool that ignores its signal', async () => {
    const res = await call({ name: 'hang', timeout_ms: 600_000 }).expect(200);
    expect(res.body.error).toEqual({ code: 'timeout', message: "Tool 'hang' did not finish within 1500 ms" });
    await call({ name: 'echo', arguments: { text: 'still fine' } }).expect(200);
  });

  it('cancels the tool when the client disconnects', async () => {
    const before = await cancelledCount('slow');
    const controller = new AbortController();
    const pending = post({ name: 'slow', arguments: { ms: 20_000 }, call_id: 'call_disconnect' }, controller.signal);
    setTimeout(() => controller.abort(), 300);
    await expect(pending).rejects.toThrow();
    await waitFor(() => observed.aborted.includes('call_disconnect'), 3000, 'the tool to be aborted');
    await waitFor(async () => (await cancelledCount('slow')) === before + 1, 3000, 'a cancelled call to be recorded');
  });

  it('runs 200 concurrent calls, each with its own result', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => `message ${i}`);
    const results = await Promise.all(
      texts.map(async (text, i) => {
        const res = await post({
          name: i % 2 ? 'echo' : 'slow',
          arguments: i % 2 ? { text } : { ms: 20 },
          call_id: `call_c${i}`,
        });
        return {
          i,
          status: res.status,
          body: (await res.json()) as {
            status: string;
            call_id: string;
            output: { echo?: { text: string }; waited?: number };
          },
        };
      }),
    );
    for (const { i, status, body } of results) {
      expect(status).toBe(200);
      expect(body.status).toBe('completed');
      expect(body.call_id).toBe(`call_c${i}`);
      expect(body.output).toEqual(
        i % 2 ? { echo: { text: texts[i] }, tenant: 'default', call_id: `call_c${i}` } : { waited: 20 },
      );
    }
  });
});

describe('POST /v1/tool_calls with stream: true', () => {
  let t: TestApp;
  const stream = (body: object, signal?: AbortSignal) =>
    fetch(`${t.baseUrl}/v1/tool_calls`, {
      method: 'POST',
      headers: { ...bearer(t.adminKey), 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
      signal,
    });

  beforeAll(async () => {
    t = await startApp('pglite', { providers: TEST_PROVIDERS, config: { builtins: { testkit: { enabled: true } } } });
  });
  afterAll(() => t?.close());

  it('streams created, progress in order, completed, then [DONE]', async () => {
    const res = await stream({ name: 'progress', arguments: { steps: 6 } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readSse(res);
    expect(events.map((e) => e.event ?? e.data)).toEqual([
      'tool_call.created',
      ...Array(6).fill('tool_call.progress'),
      'tool_call.completed',
      '[DONE]',
    ]);
    const payloads = events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(payloads[0].tool_call.status).toBe('in_progress');
    expect(payloads.slice(1, 7).map((p) => p.progress.step)).toEqual([1, 2, 3, 4, 5, 6]);
    // Without a call_id in the request, the call's own id stands for it, in progress events too.
    const callId = payloads[0].tool_call.call_id;
    expect(callId).toMatch(/^call_/);
    expect(payloads.slice(1, 7).map((p) => p.call_id)).toEqual(Array(6).fill(callId));
    expect(payloads.map((p) => p.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(payloads[7].tool_call).toEqual(expect.objectContaining({ status: 'completed', output: { steps: 6 } }));
  });

  it('ends a failing tool with tool_call.failed', async () => {
    const events = await readSse(await stream({ name: 'explode' }));
    expect(events.map((e) => e.event ?? e.data)).toEqual(['tool_call.created', 'tool_call.failed', '[DONE]']);
    expect(JSON.parse(events[1].data).tool_call.error.code).toBe('tool_error');
  });

  it('answers bad requests as JSON errors before any event', async () => {
    const res = await stream({ name: 'ecko' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unknown_tool');
  });

  it('cancels the tool when the stream is closed', async () => {
    const controller = new AbortController();
    const res = await stream(
      { name: 'slow', arguments: { ms: 20_000 }, call_id: 'call_stream_close' },
      controller.signal,
    );
    await expect(
      readSse(res, (event) => {
        if (event.event === 'tool_call.created') controller.abort();
      }),
    ).rejects.toThrow();
    await waitFor(() => observed.aborted.includes('call_stream_close'), 3000, 'the streamed tool to be aborted');
    await waitFor(
      async () =>
        metricValue((await t.http.get('/metrics')).text, 'toolgate_tool_calls_total', {
          tool_name: 'slow',
          status: 'cancelled',
        }) === 1,
      3000,
      'the cancelled call to be recorded',
    );
  });
});

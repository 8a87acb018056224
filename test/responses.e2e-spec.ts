import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { bearer, startApp, TestApp } from './support/app';
import { approvedTool, memberKey, assignedBundle } from './support/catalog';
import { ENGINES } from './support/databases';
import { FakeChatServer } from '../bench/support/fake-chat-server';
import { TEST_PROVIDERS } from './support/test-providers';
import { metricValue } from './support/wait';

const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

/**
 * /v1/responses driven by the official `openai` SDK against a scripted upstream model that speaks the
 * Chat Completions streaming wire format; tools run for real through the dispatcher.
 */
describe.each(ENGINES)('/v1/responses (%s)', (engine) => {
  let t: TestApp;
  let upstream: FakeChatServer;
  let client: OpenAI;
  let other: OpenAI;

  const auditOf = async (responseId: string) => {
    const res = await t.http.get(`/v1/tools/audit?response_id=${responseId}`).set(bearer(t.adminKey)).expect(200);
    const records = res.body.data as { response_id?: string; tool_name: string; status: string }[];
    expect(records.every((record) => record.response_id === responseId)).toBe(true);
    return records;
  };
  const status = (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: unknown) => (error instanceof OpenAI.APIError ? { status: error.status, error: error.error } : error),
    );

  beforeAll(async () => {
    upstream = await FakeChatServer.start();
    t = await startApp(engine, {
      providers: TEST_PROVIDERS,
      config: {
        builtins: { testkit: { enabled: true }, file_search: { enabled: false } },
        engine: { upstream: { url: upstream.url, model: { 'gpt-4o-mini': 'local-llama', '*': 'local-default' } } },
        // The fake upstream scripts the agent loop's turns; the judge it would otherwise be is tested on its own.
        catalog: { review: { judge_with_engine_upstream: false } },
      },
    });
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: t.adminKey, maxRetries: 0 });
    other = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: await memberKey(t, 'other'), maxRetries: 0 });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream.reset());

  it('answers text, sends instructions as the system message and maps the model name', async () => {
    upstream.script({ text: 'Hello from upstream!' });
    const response = await client.responses.create({
      model: 'gpt-4o-mini',
      instructions: 'Be brief.',
      input: 'Say hello',
    });
    expect(response).toMatchObject({
      id: expect.stringMatching(/^resp_[A-Za-z0-9]{24}$/),
      object: 'response',
      status: 'completed',
      model: 'gpt-4o-mini',
      error: null,
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    });
    expect(response.output_text).toBe('Hello from upstream!');
    expect(response.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Hello from upstream!', annotations: [], logprobs: [] }],
      },
    ]);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0].body).toMatchObject({
      model: 'local-llama',
      stream: true,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
    expect(upstream.requests[0].body.tools).toBeUndefined();
  });

  it('ends with function_call items for client tools and continues with their outputs and previous_response_id', async () => {
    upstream.script(
      {
        toolCalls: [
          { name: 'get_weather', arguments: '{"city":"Paris"}', id: 'call_paris' },
          { name: 'get_weather', arguments: '{"city":"Lyon, France"}', id: 'call_lyon' },
        ],
      },
      { text: 'Sunny in Paris, rain in Lyon.' },
    );
    const first = await client.responses.create({ model: 'gpt-4o-mini', input: 'Weather?', tools: [WEATHER_TOOL] });
    expect(first.status).toBe('completed');
    expect(first.output).toEqual([
      {
        id: expect.stringMatching(/^fc_/),
        type: 'function_call',
        status: 'completed',
        call_id: 'call_paris',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      },
      expect.objectContaining({ call_id: 'call_lyon', arguments: '{"city":"Lyon, France"}' }),
    ]);
    expect(upstream.requests[0].body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: WEATHER_TOOL.description, parameters: WEATHER_TOOL.parameters },
      },
    ]);
    expect(upstream.requests[0].body.parallel_tool_calls).toBe(true);

    const second = await client.responses.create({
      model: 'gpt-4o-mini',
      previous_response_id: first.id,
      tools: [WEATHER_TOOL],
      input: [
        { type: 'function_call_output', call_id: 'call_paris', output: '{"sky":"sunny"}' },
        { type: 'function_call_output', call_id: 'call_lyon', output: '{"sky":"rain"}' },
      ],
    });
    expect(second.output_text).toBe('Sunny in Paris, rain in Lyon.');
    expect(second.previous_response_id).toBe(first.id);
    expect(upstream.requests[1].body.messages).toEqual([
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_paris', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          {
            id: 'call_lyon',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Lyon, France"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_paris', content: '{"sky":"sunny"}' },
      { role: 'tool', tool_call_id: 'call_lyon', content: '{"sky":"rain"}' },
    ]);
  });

  it('runs catalog tools through the dispatcher, in parallel, each audited with the response id', async () => {
    upstream.script(
      {
        text: 'Let me check.',
        toolCalls: [
          { name: 'echo', arguments: '{"text":"one"}' },
          { name: 'echo', arguments: '{"text":"two, with a longer argument"}' },
        ],
      },
      { text: 'Both echoed.' },
    );
    const response = await client.responses.create({
      model: 'gpt-4o-mini',
      input: 'Echo twice',
      tools: [{ type: 'function', name: 'echo', parameters: null, strict: null }],
    });
    expect(response.status).toBe('completed');
    expect(response.output.map((item) => item.type)).toEqual(['message', 'mcp_call', 'mcp_call', 'message']);
    const calls = response.output.filter((item) => item.type === 'mcp_call');
    expect(calls[0]).toEqual({
      id: expect.stringMatching(/^mcp_/),
      type: 'mcp_call',
      status: 'completed',
      server_label: 'testkit',
      name: 'echo',
      arguments: '{"text":"one"}',
      output: JSON.stringify({ echo: { text: 'one' }, tenant: 'default', call_id: 'call_1_0' }),
      error: null,
    });
    expect(response.output_text).toBe('Let me check.Both echoed.');
    // The model saw its own text and calls, then each call's output.
    const replay = upstream.requests[1].body.messages;
    expect(replay[1]).toMatchObject({ role: 'assistant', content: 'Let me check.' });
    expect((replay[1].tool_calls as unknown[]).length).toBe(2);
    expect(replay.slice(2)).toEqual([
      { role: 'tool', tool_call_id: calls[0].id, content: (calls[0] as { output: string }).output },
      { role: 'tool', tool_call_id: calls[1].id, content: (calls[1] as { output: string }).output },
    ]);
    const audit = await auditOf(response.id);
    expect(audit.map((record) => [record.tool_name, record.status]).sort()).toEqual([
      ['echo', 'success'],
      ['echo', 'success'],
    ]);
  });

  it('tells the model about refused calls (invalid arguments) and audits them too', async () => {
    upstream.script({ toolCalls: [{ name: 'echo', arguments: '{"text":42}' }] }, { text: 'It failed.' });
    const response = await client.responses.create({
      model: 'x',
      input: 'Echo a number',
      tools: [{ type: 'function', name: 'echo', parameters: null, strict: null }],
    });
    const call = response.output.find((item) => item.type === 'mcp_call') as { status: string; error: string };
    expect(call.status).toBe('failed');
    expect(call.error).toMatch(/Invalid arguments for tool 'echo'/);
    expect(upstream.requests[0].body.model).toBe('local-default');
    expect(upstream.requests[1].body.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringContaining('Invalid arguments'),
    });
    expect((await auditOf(response.id)).map((record) => record.status)).toEqual(['invalid']);
  });

  it('streams the Responses events in order with sequence numbers', async () => {
    upstream.script({ toolCalls: [{ name: 'echo', arguments: '{"text":"streamed"}' }] }, { text: 'Done streaming.' });
    const stream = await client.responses.create({
      model: 'gpt-4o-mini',
      input: 'Stream it',
      stream: true,
      tools: [{ type: 'function', name: 'echo', parameters: null, strict: null }],
    });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.mcp_call.in_progress',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.completed',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const completed = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(completed.response.status).toBe('completed');
    const stored = await client.responses.retrieve(completed.response.id);
    expect(stored.output).toEqual(completed.response.output);
    expect(stored.output_text).toBe('Done streaming.');
    expect(await auditOf(completed.response.id)).toHaveLength(1);
  });

  it('responses.stream() gives the final response, with function call arguments streamed', async () => {
    upstream.script({ text: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    const deltas: string[] = [];
    const stream = client.responses
      .stream({ model: 'gpt-4o-mini', input: 'Oslo?', tools: [WEATHER_TOOL] })
      .on('response.function_call_arguments.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe('Checking.');
    expect(final.output[1]).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Oslo"}' });
    // The arguments stream out as the upstream writes them, in the pieces it sent.
    expect(deltas).toEqual(['{"ci', 'ty":', '"Osl', 'o"}']);
    const stored = await client.responses.retrieve(final.id);
    expect(stored.output.map((item) => [item.id, item.type])).toEqual(final.output.map((item) => [item.id, item.type]));
  });

  it('lists input items with pagination, deletes responses, and keeps tenants apart', async () => {
    upstream.script({ text: 'ok' });
    const response = await client.responses.create({
      model: 'gpt-4o-mini',
      input: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'second' },
        { role: 'user', content: [{ type: 'input_text', text: 'third' }] },
      ],
    });
    const page = await client.responses.inputItems.list(response.id, { limit: 2, order: 'asc' });
    expect(page.data.map((item) => (item as { content: { text: string }[] }).content[0].text)).toEqual([
      'first',
      'second',
    ]);
    expect(page.has_more).toBe(true);
    const all: string[] = [];
    for await (const item of client.responses.inputItems.list(response.id, { limit: 1 })) {
      all.push((item as { content: { text: string }[] }).content[0].text);
    }
    expect(all).toEqual(['third', 'second', 'first']);

    expect(await status(other.responses.retrieve(response.id))).toMatchObject({ status: 404 });
    expect(await status(other.responses.inputItems.list(response.id))).toMatchObject({ status: 404 });
    expect(await status(other.responses.delete(response.id))).toMatchObject({ status: 404 });
    expect(
      await status(other.responses.create({ model: 'gpt-4o-mini', input: 'hi', previous_response_id: response.id })),
    ).toMatchObject({ status: 404, error: { code: 'previous_response_not_found', param: 'previous_response_id' } });

    await client.responses.delete(response.id);
    expect(await status(client.responses.retrieve(response.id))).toMatchObject({ status: 404 });
    expect(upstream.requests).toHaveLength(1);
  });

  it('does not store a response with store: false', async () => {
    upstream.script({ text: 'ephemeral' });
    const response = await client.responses.create({ model: 'gpt-4o-mini', input: 'hi', store: false });
    expect(response.output_text).toBe('ephemeral');
    expect(await status(client.responses.retrieve(response.id))).toMatchObject({ status: 404 });
  });

  it('answers bad requests with a 400 naming the field, and changes nothing', async () => {
    const bad = async (body: Record<string, unknown>) => {
      const res = await t.http.post('/v1/responses').set(bearer(t.adminKey)).send(body).expect(400);
      return res.body.error;
    };
    expect(await bad({ input: 'hi' })).toMatchObject({ param: 'model', type: 'invalid_request_error' });
    expect(await bad({ model: 'm', input: [{ type: 'function_call_output', output: 'x' }] })).toMatchObject({
      param: 'input[0].call_id',
    });
    expect(
      await bad({ model: 'm', input: 'hi', tools: [{ type: 'function', name: 'ecko', parameters: null }] }),
    ).toMatchObject({
      param: 'tools[0].name',
      code: 'unknown_tool',
      message: expect.stringContaining("Did you mean 'echo'"),
    });
    expect(await bad({ model: 'm', input: 'hi', tools: [{ type: 'computer_use_preview' }] })).toMatchObject({
      param: 'tools[0].type',
    });
    expect(await bad({ model: 'm', input: 'hi', temperature: 7 })).toMatchObject({ param: 'temperature' });
    expect(
      await bad({ model: 'm', input: 'hi', tools: [{ type: 'file_search', vector_store_ids: ['vs_ok', '../x'] }] }),
    ).toMatchObject({ param: 'tools[0].vector_store_ids[1]' });
    expect(await bad({ model: 'm', input: 'hi', background: true, store: false })).toMatchObject({ param: 'store' });
    expect(await bad({ model: 'm', input: 'hi', prompt: { id: 'pmpt_1' } })).toMatchObject({
      param: 'prompt',
      code: 'unsupported_parameter',
    });
    expect(upstream.requests).toHaveLength(0);
    const missing = await t.http
      .post('/v1/responses')
      .set(bearer(t.adminKey))
      .send({ model: 'm', input: 'hi', previous_response_id: 'resp_doesnotexist' })
      .expect(404);
    expect(missing.body.error).toMatchObject({ code: 'previous_response_not_found', param: 'previous_response_id' });
  });

  it('narrows request tools to the agent profile, and hands catalog function tools to the client', async () => {
    const tools = await t.http.get('/v1/tools?q=echo&type=builtin').set(bearer(t.adminKey)).expect(200);
    const echoId = (tools.body.data as { id: string; name: string }[]).find((tool) => tool.name === 'echo')!.id;
    const notesId = await approvedTool(t, 'crm-notes');
    await assignedBundle(t, 'Support desk', [echoId, notesId], { tenant_id: 'acme', agent_profile: 'support' });
    const support = new OpenAI({
      baseURL: `${t.baseUrl}/v1`,
      apiKey: await memberKey(t, 'acme'),
      maxRetries: 0,
      defaultHeaders: { 'X-Agent-Profile': 'support' },
    });
    const registry = (name: string) => ({ type: 'function' as const, name, parameters: null, strict: null });

    expect(
      await status(
        support.responses.create({ model: 'm', input: 'hi', tools: [registry('echo'), registry('strict')] }),
      ),
    ).toMatchObject({ status: 400, error: { code: 'unknown_tool', param: 'tools[1].name' } });
    expect(upstream.requests).toHaveLength(0);

    upstream.script({
      toolCalls: [
        { name: 'echo', arguments: '{"text":"hi"}' },
        { name: 'crm-notes', arguments: '{"q":"Ada"}', id: 'call_notes' },
      ],
    });
    const response = await support.responses.create({
      model: 'm',
      input: 'Echo and take notes',
      tools: [registry('echo'), registry('crm-notes')],
    });
    expect(upstream.requests[0].body.tools?.map((tool) => tool.function.name)).toEqual(['echo', 'crm-notes']);
    expect(upstream.requests[0].body.tools?.[1].function.parameters).toMatchObject({
      properties: { q: { type: 'string' } },
    });
    // The client call's item opens while its arguments stream; the catalog call runs after the turn.
    expect(response.output.map((item) => [item.type, (item as { status?: string }).status])).toEqual([
      ['function_call', 'completed'],
      ['mcp_call', 'completed'],
    ]);
    expect(response.output[0]).toMatchObject({ call_id: 'call_notes', name: 'crm-notes', arguments: '{"q":"Ada"}' });
    const audit = await t.http.get(`/v1/tools/audit?response_id=${response.id}`).set(bearer(t.adminKey)).expect(200);
    expect(audit.body.data).toEqual([
      expect.objectContaining({ tool_name: 'echo', tenant_id: 'acme', agent_id: 'support', response_id: response.id }),
    ]);
  });

  it('tells the model about calls of tools it was not offered, and survives an unreadable upstream answer', async () => {
    upstream.script({ toolCalls: [{ name: 'rm_rf', arguments: '{}' }] }, { text: 'Sorry.' });
    const response = await client.responses.create({ model: 'm', input: 'go', tools: [WEATHER_TOOL] });
    expect(response.output[0]).toMatchObject({
      type: 'mcp_call',
      status: 'failed',
      server_label: 'toolgate',
      name: 'rm_rf',
      error: expect.stringContaining("Unknown tool 'rm_rf'"),
    });
    expect(response.output_text).toBe('Sorry.');
    expect(await auditOf(response.id)).toEqual([]);

    upstream.script(
      { raw: 'data: {"choices": [{"delta": {"content": "par\n\n' },
      {
        raw: 'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"cut"}}]}\n\n',
      },
    );
    const unreadable = await client.responses.create({ model: 'm', input: 'go' });
    expect(unreadable).toMatchObject({
      status: 'failed',
      error: { code: 'server_error', message: 'The upstream model sent an answer that could not be read' },
    });
    const truncated = await client.responses.create({ model: 'm', input: 'go' });
    expect(truncated).toMatchObject({
      status: 'failed',
      error: { code: 'server_error', message: "The upstream model's answer ended before it was complete" },
    });
    expect(truncated.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
  });

  it('ends failed with an error object when the upstream fails, without its details', async () => {
    upstream.script({ status: 500, body: { error: { message: 'internal: db password hunter2 at 10.0.0.7' } } });
    const response = await client.responses.create({ model: 'gpt-4o-mini', input: 'hi' });
    expect(response.status).toBe('failed');
    expect(response.error).toEqual({ code: 'server_error', message: 'The upstream model answered HTTP 500' });
    expect(JSON.stringify(response)).not.toContain('hunter2');
    expect((await client.responses.retrieve(response.id)).status).toBe('failed');
    const metrics = (await t.http.get('/metrics')).text;
    expect(metricValue(metrics, 'toolgate_responses_total', { status: 'failed' })).toBeGreaterThanOrEqual(1);
    expect(
      metricValue(metrics, 'toolgate_responses_upstream_turn_seconds_count', { outcome: 'error' }),
    ).toBeGreaterThanOrEqual(1);
  });
});

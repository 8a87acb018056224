import { Injectable, Module } from '@nestjs/common';
import { FunctionProvider } from '../src/tools/registry/function-provider';
import type { ToolCall, ToolDefinition, ToolResult } from '../src/tools/tool-executor';
import { bearer, startApp, TestApp } from './support/app';
import { ENGINES } from './support/databases';
import { FakeSearchServer } from './support/fake-search-server';
import { TEST_PROVIDERS } from './support/test-providers';

/** `{"a":{"a":...{"a":leaf}}}` nested `depth` levels, written as text so building it walks nothing. */
const deepText = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

/** A value nested `depth` levels deep, built without recursion. */
function deepValue(depth: number, leaf: Record<string, unknown>): Record<string, unknown> {
  let value = leaf;
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

/** Answers like a remote server gone wrong: a result nested as deep as asked, in arrays. */
@Injectable()
@FunctionProvider('abyss')
class AbyssProvider {
  readonly name = 'abyss';
  tools(): ToolDefinition[] {
    return [
      {
        name: 'deep_result',
        description: 'Returns a result nested `levels` arrays deep.',
        parameters: { type: 'object', properties: { levels: { type: 'integer', minimum: 1 } }, required: ['levels'] },
      },
    ];
  }
  canExecute(name: string): boolean {
    return name === 'deep_result';
  }
  async execute(call: ToolCall): Promise<ToolResult> {
    let output: unknown = 'bottom';
    for (let level = 0; level < (call.arguments as { levels: number }).levels; level++) output = [output];
    return { callId: call.id, output: { nested: output }, isError: false };
  }
}

@Module({ providers: [AbyssProvider] })
class AbyssModule {}

const tooDeepPath = (prefix: string, levels: number) => prefix + '.a'.repeat(levels);

describe.each(ENGINES)('hostile input on %s', (engine) => {
  let t: TestApp;
  let search: FakeSearchServer;

  beforeAll(async () => {
    search = await FakeSearchServer.start(() => ({ text: deepText(10_000) }));
    t = await startApp(engine, {
      providers: [...TEST_PROVIDERS, { name: 'abyss', module: AbyssModule }],
      config: {
        // Deep enough for the 100-level audit test below; 10,000 levels stay far beyond it.
        server: { max_json_depth: 128 },
        builtins: {
          testkit: { enabled: true },
          abyss: { enabled: true },
          web_search: { enabled: true, search_engine_url: search.url, backends: ['searxng'], timeout: '60s' },
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await search?.close();
  });

  const postRaw = (path: string, body: string) =>
    t.http.post(path).set(bearer(t.adminKey)).set('Content-Type', 'application/json').send(body);

  const expectTooDeep = (res: { status: number; body: unknown }, param: string) => {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        message: expect.stringContaining('nested more than 128 levels'),
        type: 'invalid_request_error',
        param,
        code: 'nesting_too_deep',
      },
    });
  };

  const stillServing = async () => {
    await t.http.get('/healthz').expect(200);
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'echo', arguments: { text: 'still here' } })
      .expect(200);
    expect(res.body.output.echo).toEqual({ text: 'still here' });
  };

  it('refuses 10,000-deep tool call arguments with the path of the too-deep value', async () => {
    const res = await postRaw('/v1/tool_calls', `{"name":"strict","arguments":${deepText(10_000)}}`);
    // The body is level 1 and `arguments` level 2, so the value at level 129 is 127 `.a` below it.
    expectTooDeep(res, tooDeepPath('arguments', 127));
    await stillServing();
  });

  it('refuses 10,000-deep arguments sent as a JSON string', async () => {
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      // `reply` takes anything, so only the depth check stands between this value and a recursive walk.
      .send({ name: 'strict', arguments: `{"user":{"name":"ann"},"reply":${deepText(10_000)}}` });
    expectTooDeep(res, tooDeepPath('arguments.reply', 127));
    await stillServing();
  });

  it('refuses a 10,000-deep tool registration and creates nothing', async () => {
    const before = await t.http.get('/v1/tools?limit=100').set(bearer(t.adminKey)).expect(200);
    const body = `{"name":"deep_tool","description":"Deep.","source":{"type":"function"},"schema":${deepText(10_000)}}`;
    expectTooDeep(await postRaw('/v1/tools', body), tooDeepPath('schema', 127));
    const after = await t.http.get('/v1/tools?limit=100').set(bearer(t.adminKey)).expect(200);
    expect(after.body.data.map((tool: { id: string }) => tool.id)).toEqual(
      before.body.data.map((tool: { id: string }) => tool.id),
    );
    await stillServing();
  });

  it.each([
    ['a NUL character', '\\u0000', 'description'],
    ['an unpaired surrogate', '\\ud800', 'schema.properties.q.description'],
    ['an unpaired surrogate in a key', '\\udfff', 'schema.properties["q\\udfff"]'],
  ])(
    'refuses a tool whose JSON carries %s (which the database cannot store) and creates nothing',
    async (_, escape, param) => {
      const before = await t.http.get('/v1/tools?limit=100').set(bearer(t.adminKey)).expect(200);
      const description = param === 'description' ? `Looks up ${escape}records.` : 'Looks up records.';
      const property = param.includes('["q') ? `q${escape}` : 'q';
      const schemaText = param.startsWith('schema.properties.q') ? `query ${escape}` : 'query';
      const body =
        `{"name":"bad_text_tool","description":"${description}","source":{"type":"function"},` +
        `"schema":{"type":"object","properties":{"${property}":{"type":"string","description":"${schemaText}"}}}}`;
      const res = await postRaw('/v1/tools', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        message: expect.stringContaining('NUL character'),
        type: 'invalid_request_error',
        param,
        code: 'invalid_string',
      });
      const after = await t.http.get('/v1/tools?limit=100').set(bearer(t.adminKey)).expect(200);
      expect(after.body.data).toHaveLength(before.body.data.length);
      await stillServing();
    },
  );

  it('refuses a 10,000-deep vector store body and creates nothing', async () => {
    const body = `{"name":"deep store","metadata":${deepText(10_000)}}`;
    expectTooDeep(await postRaw('/v1/vector_stores', body), tooDeepPath('metadata', 127));
    const stores = await t.http.get('/v1/vector_stores').set(bearer(t.adminKey)).expect(200);
    expect(stores.body.data.map((store: { name: string }) => store.name)).not.toContain('deep store');
    await stillServing();
  });

  it('fails one web_search call cleanly when the search service answers 10,000-deep JSON', async () => {
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'web_search', arguments: { query: 'deep' } })
      .expect(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error.message).toMatch(/nested more than \d+ levels/);
    await stillServing();
  });

  it('fails one call cleanly when a tool answers with a 10,000-deep result', async () => {
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'deep_result', arguments: { levels: 10_000 } })
      .expect(200);
    expect(res.body).toMatchObject({ status: 'failed', output: null, error: { code: 'result_too_deep' } });
    const shallow = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'deep_result', arguments: { levels: 3 } })
      .expect(200);
    expect(shallow.body.output).toEqual({ nested: [[['bottom']]] });
    await stillServing();
  });

  it('refuses a 10,000-deep vector store search filter', async () => {
    const store = await t.http
      .post('/v1/vector_stores')
      .set(bearer(t.adminKey))
      .send({ name: 'shallow store' })
      .expect(200);
    const body = `{"query":"x","filters":${deepText(10_000)}}`;
    expectTooDeep(await postRaw(`/v1/vector_stores/${store.body.id}/search`, body), tooDeepPath('filters', 127));
    await stillServing();
  });

  it('redacts a password nested 100 levels deep in the stored audit record', async () => {
    const tools = await t.http.get('/v1/tools?q=strict&type=builtin').set(bearer(t.adminKey)).expect(200);
    const strictId = tools.body.data.find((tool: { name: string }) => tool.name === 'strict').id;
    await t.http.put(`/v1/tools/${strictId}`).set(bearer(t.adminKey)).send({ audit_level: 'full' }).expect(200);
    const reply = deepValue(100, { password: 'deep-hunter2', note: 'login with password=hunter2 please' });
    const call = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'strict', arguments: { user: { name: 'ann' }, reply } })
      .expect(200);
    const audit = await t.http.get(`/v1/tools/audit?tool_id=${strictId}&limit=100`).set(bearer(t.adminKey)).expect(200);
    const record = audit.body.data.find((row: { call_id: string }) => row.call_id === call.body.call_id);
    const stored = JSON.stringify(record);
    expect(stored).not.toContain('hunter2');
    let innermost = record.input_args.reply;
    for (let level = 1; level < 100; level++) innermost = innermost.a;
    expect(innermost).toEqual({ password: '[REDACTED]', note: 'login with password=[REDACTED] please' });
  });
});

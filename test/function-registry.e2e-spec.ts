import { bearer, startApp, TestApp } from './support/app';
import { createTestDatabase } from './support/databases';
import { observed, TEST_PROVIDERS } from './support/test-providers';
import { metricValue } from './support/wait';

const withProviders = (...names: string[]) => ({
  providers: TEST_PROVIDERS,
  config: {
    builtins: {
      file_search: { enabled: false },
      ...Object.fromEntries(TEST_PROVIDERS.map((p) => [p.name, { enabled: names.includes(p.name) }])),
    },
  },
});

describe('FunctionRegistry', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp('postgres', withProviders('testkit'));
  });
  afterAll(() => t?.close());

  it('discovers providers and lists their tools in OpenAI form', async () => {
    const res = await t.http.get('/v1/tool_definitions').set(bearer(t.adminKey)).expect(200);
    expect(res.body.object).toBe('list');
    const names = res.body.data.map((tool: { name: string }) => tool.name).sort();
    expect(names).toEqual(['big', 'echo', 'explode', 'hang', 'progress', 'slow', 'strict']);
    const echo = res.body.data.find((tool: { name: string }) => tool.name === 'echo');
    expect(echo).toEqual({
      type: 'function',
      name: 'echo',
      description: 'Returns its arguments and the calling tenant.',
      parameters: expect.objectContaining({ type: 'object', properties: { text: { type: 'string', maxLength: 100 } } }),
    });
  });

  it('lists tools in MCP form, with output schemas where declared, and narrows to requested names', async () => {
    const res = await t.http
      .get('/v1/tool_definitions?format=mcp&tools=strict,echo,nope')
      .set(bearer(t.adminKey))
      .expect(200);
    const byName = Object.fromEntries(res.body.data.map((tool: { name: string }) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual(['echo', 'strict']);
    expect(byName.strict.inputSchema.required).toEqual(['user']);
    expect(byName.strict.outputSchema).toEqual(expect.objectContaining({ required: ['ok'] }));
    expect(byName.echo.outputSchema).toBeUndefined();
  });

  it('refuses an unknown format', async () => {
    const res = await t.http.get('/v1/tool_definitions?format=xml').set(bearer(t.adminKey)).expect(400);
    expect(res.body.error.param).toBe('format');
  });

  it('leaves a disabled provider out entirely: no tools and no routes', async () => {
    const defs = await t.http.get('/v1/tool_definitions').set(bearer(t.adminKey)).expect(200);
    expect(defs.body.data.map((tool: { name: string }) => tool.name)).not.toContain('spare_tool');
    const route = await t.http.get('/v1/spare').set(bearer(t.adminKey)).expect(404);
    expect(route.body.error.code).toBe('unknown_route');
    const call = await t.http.post('/v1/tool_calls').set(bearer(t.adminKey)).send({ name: 'spare_tool' }).expect(400);
    expect(call.body.error.code).toBe('unknown_tool');
  });

  it("gives a provider's routes auth and the automatic API metrics, labelled by route pattern", async () => {
    await t.http.get('/v1/testkit/things/abc').set(bearer(t.adminKey)).expect(200, { id: 'abc' });
    await t.http.get('/v1/testkit/things/def').expect(401);
    const metrics = (await t.http.get('/metrics').expect(200)).text;
    const labels = { provider: 'testkit', method: 'GET', path: '/v1/testkit/things/:id' };
    expect(metricValue(metrics, 'toolgate_builtin_api_requests_total', { ...labels, status: '200' })).toBe(1);
    expect(metricValue(metrics, 'toolgate_builtin_api_requests_total', { ...labels, status: '401' })).toBe(1);
    expect(metricValue(metrics, 'toolgate_builtin_api_duration_seconds_count', labels)).toBe(2);
    expect(metrics).not.toContain('things/abc');
  });

  it('records execution metrics per provider and tool, and registers provider collectors', async () => {
    await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'echo', arguments: { text: 'hi' } })
      .expect(200);
    await t.http.post('/v1/tool_calls').set(bearer(t.adminKey)).send({ name: 'explode' }).expect(200);
    const metrics = (await t.http.get('/metrics').expect(200)).text;
    const echo = { provider: 'testkit', tool_name: 'echo' };
    expect(
      metricValue(metrics, 'toolgate_builtin_tool_executions_total', { ...echo, status: 'success' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      metricValue(metrics, 'toolgate_builtin_tool_executions_total', {
        provider: 'testkit',
        tool_name: 'explode',
        status: 'error',
      }),
    ).toBe(1);
    expect(metricValue(metrics, 'toolgate_builtin_tool_duration_seconds_count', echo)).toBeGreaterThanOrEqual(1);
    expect(metricValue(metrics, 'toolgate_testkit_echoes_total', { tenant: 'default' })).toBeGreaterThanOrEqual(1);
  });
});

describe('FunctionRegistry start-up checks', () => {
  it('loads a provider when its config enables it', async () => {
    const t = await startApp('postgres', withProviders('testkit', 'spare'));
    try {
      await t.http.get('/v1/spare').set(bearer(t.adminKey)).expect(200, { spare: true });
      const defs = await t.http.get('/v1/tool_definitions').set(bearer(t.adminKey)).expect(200);
      expect(defs.body.data.map((tool: { name: string }) => tool.name)).toContain('spare_tool');
    } finally {
      await t.close();
    }
  });

  it('refuses two providers claiming one tool name, naming both', async () => {
    await expect(startApp('postgres', withProviders('testkit', 'copycat'))).rejects.toThrow(
      /Tool name "echo" is claimed by two providers: "(testkit|copycat)" and "(copycat|testkit)"/,
    );
  });

  it('refuses a marked provider that does not implement the contract', async () => {
    await expect(startApp('postgres', withProviders('broken'))).rejects.toThrow(
      "BrokenProvider is marked @FunctionProvider('broken') but does not implement execute()",
    );
  });

  it('refuses a builtins section naming no provider', async () => {
    await expect(startApp('postgres', { config: { builtins: { web_serch: { enabled: true } } } })).rejects.toThrow(
      /builtins\.web_serch names no built-in provider/,
    );
  });

  it('closes every provider on shutdown', async () => {
    const database = await createTestDatabase('pglite');
    const t = await startApp('pglite', { ...withProviders('testkit'), database });
    observed.closed.length = 0;
    await t.close();
    await database.drop();
    expect(observed.closed).toEqual(['testkit']);
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, startApp, TestApp } from './support/app';
import { approvedTool, memberKey } from './support/catalog';
import { ENGINES } from './support/databases';

/** An answer with the asked-for name taken out: what is left must not tell a hidden tool from a missing one. */
const withoutName = (answer: unknown, name: string) => JSON.stringify(answer).replaceAll(name, '<name>');

/**
 * A tenant learns nothing about tools it may not see (other tenants' private tools): calling one answers
 * exactly as calling a name that does not exist, on every surface, while the audit keeps the real reason.
 * Built-in names are public, so a disabled built-in is named as such with the setting that enables it.
 */
describe.each(ENGINES)('tool names a caller may not see (%s)', (engine) => {
  let t: TestApp;
  let acme: string;
  let globex: string;
  const clients: Client[] = [];
  const restCall = (key: string, name: string) =>
    t.http.post('/v1/tool_calls').set(bearer(key)).send({ name, arguments: {} });
  const mcpClient = async (key: string) => {
    const client = new Client({ name: 'privacy-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    clients.push(client);
    return client;
  };
  const mcpError = (promise: Promise<unknown>) =>
    promise.then(
      () => 'answered',
      (error: Error) => error.message,
    );
  const responsesCall = (key: string, tools: object[]) =>
    t.http.post('/v1/responses').set(bearer(key)).send({ model: 'any', input: 'hi', tools });

  beforeAll(async () => {
    t = await startApp(engine, {
      config: {
        builtins: { file_search: { enabled: false } },
        gateway: { max_listed_tools: 1 },
        // Never reached: every request below is refused before the model is asked.
        engine: { upstream: { url: 'http://127.0.0.1:9/v1' } },
      },
    });
    acme = await memberKey(t, 'acme');
    globex = await memberKey(t, 'globex');
    await approvedTool(t, 'weather-lookup', { source: { type: 'function' } });
    await approvedTool(t, 'weather-alerts', { source: { type: 'function' } });
    await approvedTool(t, 'acme-pricing', { tenant_access: { mode: 'allowlist', allowlist: ['acme'] } });
    await t.http
      .post('/v1/tools')
      .set(bearer(acme))
      .send({
        name: 'acme-draft',
        description: 'Drafts a price list.',
        source: { type: 'function' },
        schema: { type: 'object' },
      })
      .expect(201);
  }, 300_000);
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t?.close();
  });

  it('answers /v1/tool_calls for a hidden tool as for a missing one, and suggests only visible names', async () => {
    const missing = await restCall(globex, 'acme-payroll').expect(400);
    expect(missing.body.error).toEqual(
      expect.objectContaining({ code: 'unknown_tool', param: 'name', type: 'invalid_request_error' }),
    );
    for (const hidden of ['acme-pricing', 'acme-draft']) {
      const answer = await restCall(globex, hidden).expect(400);
      expect(withoutName(answer.body, hidden)).toBe(withoutName(missing.body, 'acme-payroll'));
    }
    const typo = await restCall(globex, 'acme-pricin').expect(400);
    expect(typo.body.error.message).not.toMatch(/acme-pricing|acme-draft/);
    expect(typo.body.error.message).toContain('weather-lookup');
    // The tool's own tenant still hears why: it may see its draft.
    const own = await restCall(acme, 'acme-draft').expect(200);
    expect(own.body.error.code).toBe('not_approved');
  });

  it('keeps the real reason in the audit', async () => {
    const audit = await t.http
      .get('/v1/tools/audit?tenant_id=globex&status=denied')
      .set(bearer(t.adminKey))
      .expect(200);
    const reasons = Object.fromEntries(
      (audit.body.data as { tool_name: string; error: string }[]).map((row) => [row.tool_name, row.error]),
    );
    expect(reasons['acme-pricing']).toContain('tenant_denied');
    expect(reasons['acme-draft']).toContain('not_approved');
  });

  it('answers MCP tools/call and the call_tool meta-tool for a hidden tool as for a missing one', async () => {
    const client = await mcpClient(globex);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
    const missing = await mcpError(client.callTool({ name: 'acme-payroll', arguments: {} }));
    expect(missing).toContain("Unknown tool 'acme-payroll'");
    const hidden = await mcpError(client.callTool({ name: 'acme-pricing', arguments: {} }));
    expect(hidden.replaceAll('acme-pricing', '<name>')).toBe(missing.replaceAll('acme-payroll', '<name>'));
    const viaMeta = await mcpError(
      client.callTool({ name: 'call_tool', arguments: { name: 'acme-draft', arguments: {} } }),
    );
    expect(viaMeta.replaceAll('acme-draft', '<name>')).toBe(missing.replaceAll('acme-payroll', '<name>'));
  });

  it('answers /v1/responses for a hidden tool as for a missing one', async () => {
    const missing = await responsesCall(globex, [{ type: 'function', name: 'acme-payroll' }]).expect(400);
    const hidden = await responsesCall(globex, [{ type: 'function', name: 'acme-pricing' }]).expect(400);
    expect(withoutName(hidden.body, 'acme-pricing')).toBe(withoutName(missing.body, 'acme-payroll'));
    expect(hidden.body.error.message).not.toContain('acme-draft');
  });

  it('names a disabled built-in and the setting that enables it, on every surface', async () => {
    const rest = await restCall(globex, 'web_search').expect(400);
    expect(rest.body.error).toEqual(
      expect.objectContaining({
        code: 'unknown_tool',
        message: expect.stringContaining('built-in tool that is disabled on this server'),
      }),
    );
    expect(rest.body.error.message).toContain('builtins.web_search.enabled: true');
    const mcp = await mcpError((await mcpClient(globex)).callTool({ name: 'web_search', arguments: {} }));
    expect(mcp).toContain('builtins.web_search.enabled: true');
    const responses = await responsesCall(globex, [{ type: 'web_search' }]).expect(400);
    expect(responses.body.error.message).toContain('builtins.web_search.enabled: true');
    const fileSearch = await restCall(globex, 'file_search').expect(400);
    expect(fileSearch.body.error.message).toContain('builtins.file_search.enabled: true');
  });
});

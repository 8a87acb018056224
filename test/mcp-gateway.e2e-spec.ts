import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { bearer, Replicas, startApp, startReplicas, TestApp } from './support/app';
import { approvedTool, memberKey, review } from './support/catalog';
import { TEST_PROVIDERS } from './support/test-providers';
import { waitFor } from './support/wait';

const testkit = {
  providers: TEST_PROVIDERS,
  config: { builtins: { testkit: { enabled: true }, file_search: { enabled: false } } },
};

async function connect(baseUrl: string, key: string, profile?: string): Promise<Client> {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (profile) headers['X-Agent-Profile'] = profile;
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }));
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe('MCP gateway at /mcp', () => {
  let t: TestApp;
  const keys: Record<string, string> = {};
  const clients: Client[] = [];
  const open = async (tenant: string, profile?: string) => {
    const client = await connect(t.baseUrl, keys[tenant], profile);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await startApp('postgres', testkit);
    for (const tenant of ['acme', 'globex', 'initech']) keys[tenant] = await memberKey(t, tenant);
    const jira = await approvedTool(t, 'jira-search', { source: { type: 'function' } });
    await approvedTool(t, 'aws-s3', { tenant_access: { mode: 'denylist', denylist: ['globex'] } });
    const bundle = await t.http
      .post('/v1/tools/bundles')
      .set(bearer(t.adminKey))
      .send({ name: 'trial', tools: [jira] })
      .expect(201);
    await t.http
      .post(`/v1/tools/bundles/${bundle.body.id}/assign`)
      .set(bearer(t.adminKey))
      .send({ tenant_id: 'initech' })
      .expect(200);
    const echo = (await t.http.get('/v1/tools?q=echo&type=builtin').set(bearer(t.adminKey))).body.data[0].id;
    const support = await t.http
      .post('/v1/tools/bundles')
      .set(bearer(t.adminKey))
      .send({ name: 'support', tools: [echo] })
      .expect(201);
    await t.http
      .post(`/v1/tools/bundles/${support.body.id}/assign`)
      .set(bearer(t.adminKey))
      .send({ tenant_id: 'acme', agent_profile: 'support' })
      .expect(200);
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t?.close();
  });

  it("lists exactly each caller's effective tools, with schemas", async () => {
    const builtins = ['big', 'echo', 'explode', 'hang', 'progress', 'slow', 'strict'];
    expect(await names(await open('acme'))).toEqual(['aws-s3', ...builtins, 'jira-search'].sort());
    expect(await names(await open('globex'))).toEqual([...builtins, 'jira-search'].sort());
    expect(await names(await open('initech'))).toEqual(['jira-search']);
    expect(await names(await open('acme', 'support'))).toEqual(['echo']);
    const strict = (await (await open('acme')).listTools()).tools.find((tool) => tool.name === 'strict');
    expect(strict?.inputSchema.required).toEqual(['user']);
    expect(strict?.outputSchema).toEqual(expect.objectContaining({ required: ['ok'] }));
  });

  it('advertises tools with listChanged', async () => {
    const client = await open('acme');
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
  });

  it('runs calls through the dispatcher: success, denial, bad arguments, unknown tool', async () => {
    const client = await open('acme');
    const ok = await client.callTool({ name: 'echo', arguments: { text: 'via mcp' } });
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toEqual(expect.objectContaining({ echo: { text: 'via mcp' }, tenant: 'acme' }));
    const globex = await open('globex');
    const denied = await globex.callTool({ name: 'aws-s3', arguments: {} });
    expect(denied.isError).toBe(true);
    expect((denied.content as { text: string }[])[0].text).toContain("not available to tenant 'globex'");
    const bad = await client.callTool({ name: 'strict', arguments: { user: {} } });
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0].text).toContain('$.user.name is required');
    await expect(client.callTool({ name: 'ecko', arguments: {} })).rejects.toThrow(/Did you mean 'echo'/);
    const audit = await t.http
      .get('/v1/tools/audit?tenant_id=globex&status=denied')
      .set(bearer(t.adminKey))
      .expect(200);
    expect(audit.body.data.map((record: { tool_name: string }) => record.tool_name)).toContain('aws-s3');
  });

  it('answers rate-limited calls as tool errors', async () => {
    const id = (await t.http.get('/v1/tools?q=explode&type=builtin').set(bearer(t.adminKey))).body.data[0].id;
    await t.http
      .put(`/v1/tools/${id}`)
      .set(bearer(t.adminKey))
      .send({ rate_limit: { per_minute: 1 } })
      .expect(200);
    const client = await open('globex');
    await client.callTool({ name: 'explode', arguments: {} });
    const limited = await client.callTool({ name: 'explode', arguments: {} });
    expect(limited.isError).toBe(true);
    expect((limited.content as { text: string }[])[0].text).toContain('Rate limit');
  });

  it('forwards progress when the client sent a progress token', async () => {
    const client = await open('acme');
    const seen: number[] = [];
    const result = await client.callTool({ name: 'progress', arguments: { steps: 4 } }, CallToolResultSchema, {
      onprogress: (progress) => seen.push(progress.progress),
    });
    expect(result.structuredContent).toEqual({ steps: 4 });
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('aborts the underlying call when the client cancels', async () => {
    const client = await open('acme');
    const controller = new AbortController();
    const pending = client.callTool({ name: 'slow', arguments: { ms: 20_000 } }, CallToolResultSchema, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 300);
    await expect(pending).rejects.toThrow();
    await waitFor(
      async () => {
        const audit = await t.http.get('/v1/tools/audit?tool_name=slow&status=cancelled').set(bearer(t.adminKey));
        return audit.body.data.length === 1;
      },
      5000,
      'the cancelled call in the audit trail',
    );
  });

  it('sends notifications/tools/list_changed when an admin blocks a tool', async () => {
    const client = await open('acme');
    await client.listTools();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed += 1;
    });
    const id = (await t.http.get('/v1/tools?q=aws-s3').set(bearer(t.adminKey))).body.data[0].id;
    await review(t, id, 'blocked');
    await waitFor(() => changed >= 1, 3000, 'list_changed');
    expect(await names(client)).not.toContain('aws-s3');
  });

  it('refuses a bad token', async () => {
    await expect(connect(t.baseUrl, 'tg_not_a_real_key_000000000000000')).rejects.toThrow();
    const res = await t.http
      .post('/mcp')
      .set(bearer('tg_not_a_real_key_000000000000000'))
      .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    expect(res.status).toBe(401);
  });

  it("does not let another caller use someone's session", async () => {
    const client = await open('acme');
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const res = await t.http
      .post('/mcp')
      .set(bearer(keys.globex))
      .set('Mcp-Session-Id', sessionId)
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    expect(res.status).toBe(404);
  });
});

describe('MCP gateway across replicas', () => {
  let cluster: Replicas;
  let replicas: TestApp[];

  beforeAll(async () => {
    cluster = await startReplicas(testkit);
    replicas = cluster.replicas;
  });
  afterAll(() => cluster?.close());

  it('serves a session begun on one replica from the other', async () => {
    const key = await memberKey(replicas[0], 'acme');
    const client = await connect(replicas[0].baseUrl, key);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const headers = {
      Authorization: `Bearer ${key}`,
      'Mcp-Session-Id': sessionId,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Protocol-Version': '2025-06-18',
    };
    const res = await fetch(`${replicas[1].baseUrl}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'other replica' } },
      }),
    });
    expect(res.status).toBe(200);
    const body = await res.text();
    const message = JSON.parse(
      body
        .split('\n')
        .find((line) => line.startsWith('data: '))!
        .slice(6),
    );
    expect(message.result.structuredContent).toEqual(
      expect.objectContaining({ echo: { text: 'other replica' }, tenant: 'acme' }),
    );
    await client.close();
  });
});

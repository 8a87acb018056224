import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { bearer, Replicas, startApp, startReplicas, TestApp } from './support/app';
import { approvedTool, memberKey, review, assignedBundle } from './support/catalog';
import { TEST_PROVIDERS } from './support/test-providers';
import { waitFor } from './support/wait';

const ALLOWED_ORIGIN = 'https://inspector.example.test';
const testkit = {
  providers: TEST_PROVIDERS,
  config: {
    builtins: { testkit: { enabled: true }, file_search: { enabled: false } },
    gateway: { allowed_origins: [ALLOWED_ORIGIN] },
  },
};

async function connect(
  baseUrl: string,
  key: string,
  profile?: string,
  fetchVia?: (url: string | URL, init?: RequestInit) => Promise<globalThis.Response>,
): Promise<Client> {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (profile) headers['X-Agent-Profile'] = profile;
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers }, fetch: fetchVia }),
  );
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
    await assignedBundle(t, 'trial', [jira], { tenant_id: 'initech' });
    const echo = (await t.http.get('/v1/tools?q=echo&type=builtin').set(bearer(t.adminKey))).body.data[0].id;
    await assignedBundle(t, 'support', [echo], { tenant_id: 'acme', agent_profile: 'support' });
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

  it('is stateless: no session id, and no list_changed promised', async () => {
    const client = await open('acme');
    expect((client.transport as StreamableHTTPClientTransport).sessionId).toBeUndefined();
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
  });

  it('runs calls through the dispatcher: success, denial, bad arguments, unknown tool', async () => {
    const client = await open('acme');
    const ok = await client.callTool({ name: 'echo', arguments: { text: 'via mcp' } });
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toEqual(expect.objectContaining({ echo: { text: 'via mcp' }, tenant: 'acme' }));
    const globex = await open('globex');
    // A tool globex may not see answers as a missing one would; the audit below keeps the denial.
    await expect(globex.callTool({ name: 'aws-s3', arguments: {} })).rejects.toThrow(/Unknown tool 'aws-s3'/);
    const bad = await client.callTool({ name: 'strict', arguments: { user: {} } });
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0].text).toContain('$.user.name is required');
    // One "MCP error -32602:" prefix, the client's own: the gateway sends the bare message.
    const unknown = await client.callTool({ name: 'ecko', arguments: {} }).catch((error: Error) => error);
    expect((unknown as Error).message).toMatch(/^MCP error -32602: Unknown tool 'ecko'.*Did you mean 'echo'/);
    expect((unknown as Error).message.match(/MCP error/g)).toHaveLength(1);
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

  it('aborts the underlying call when the client disconnects', async () => {
    const client = await connect(t.baseUrl, keys.acme);
    const pending = client.callTool({ name: 'slow', arguments: { ms: 20_000 } });
    setTimeout(() => void client.close(), 300);
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

  it('shows an admin block to a client on its next tools/list', async () => {
    const id = await approvedTool(t, 'blocked-later');
    const client = await open('acme');
    expect(await names(client)).toContain('blocked-later');
    await review(t, id, 'blocked');
    expect(await names(client)).not.toContain('blocked-later');
  });

  it('refuses a bad token', async () => {
    await expect(connect(t.baseUrl, 'tg_not_a_real_key_000000000000000')).rejects.toThrow();
    const res = await t.http
      .post('/mcp')
      .set(bearer('tg_not_a_real_key_000000000000000'))
      .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    expect(res.status).toBe(401);
  });

  const listRequest = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
  const post = (origin?: string) => {
    const req = t.http
      .post('/mcp')
      .set(bearer(keys.acme))
      .set('Accept', 'application/json, text/event-stream')
      .set('Mcp-Protocol-Version', '2025-06-18');
    return origin === undefined ? req.send(listRequest) : req.set('Origin', origin).send(listRequest);
  };

  it('answers GET and DELETE with 405, as a stateless endpoint', async () => {
    for (const method of ['get', 'delete'] as const) {
      const res = await t.http[method]('/mcp').set(bearer(keys.acme)).set('Accept', 'text/event-stream');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.body.error).toEqual(expect.objectContaining({ code: 'method_not_allowed' }));
    }
  });

  it('refuses a browser Origin that is neither this host nor allowed, and changes nothing', async () => {
    const res = await post('https://evil.example.test');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: expect.objectContaining({ type: 'permission_error', code: 'origin_not_allowed' }),
    });
    // Checked before authentication: a page without credentials learns no more than one with them.
    const tokenless = await t.http.post('/mcp').set('Origin', 'https://evil.example.test').send(listRequest);
    expect(tokenless.status).toBe(403);
    expect(tokenless.body.error).toEqual(expect.objectContaining({ code: 'origin_not_allowed' }));
    const host = new URL(t.baseUrl).host;
    for (const origin of [undefined, ALLOWED_ORIGIN, `http://${host}`]) {
      const ok = await post(origin);
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('"tools"');
    }
  });

  it('authenticates every request: a request without credentials gets 401', async () => {
    const res = await t.http
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .set('Mcp-Protocol-Version', '2025-06-18')
      .send(listRequest);
    expect(res.status).toBe(401);
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

  it('answers alternating requests of one client from either replica, with no shared session', async () => {
    const key = await memberKey(replicas[0], 'acme');
    const bases = replicas.map((replica) => new URL(replica.baseUrl));
    const served: number[] = [];
    const sessionIds: string[] = [];
    let turn = 0;
    // A load balancer that sends each request to the next replica in turn.
    const roundRobin = (url: string | URL, init?: RequestInit) => {
      const index = turn++ % bases.length;
      served.push(index);
      const target = new URL(url);
      target.host = bases[index].host;
      return fetch(target, init).then((response) => {
        const sessionId = response.headers.get('mcp-session-id');
        if (sessionId) sessionIds.push(sessionId);
        return response;
      });
    };
    const client = await connect(replicas[0].baseUrl, key, undefined, roundRobin);
    for (let i = 0; i < 4; i += 1) {
      const result = await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
      expect(result.structuredContent).toEqual(
        expect.objectContaining({ echo: { text: `call ${i}` }, tenant: 'acme' }),
      );
      expect(await names(client)).toContain('echo');
    }
    expect(new Set(served)).toEqual(new Set([0, 1]));
    expect(sessionIds).toEqual([]);
    await client.close();
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { bearer, startApp, TestApp } from './support/app';
import { approvedTool, memberKey, assignedBundle } from './support/catalog';
import { createServer } from 'node:net';
import { ENGINES } from './support/databases';
import { signHs256 } from './support/jwks';
import { OAuthProvider } from './support/oauth-provider';
import { TEST_PROVIDERS } from './support/test-providers';

const JWT_SECRET = 'a-shared-secret-of-at-least-32-bytes!';
const BUILTINS = ['big', 'echo', 'explode', 'hang', 'progress', 'slow', 'strict'];
const MAX_LISTED_TOOLS = 5;

interface AuditRow {
  tool_name: string;
  call_id: string;
  agent_id?: string;
  status: string;
  [field: string]: unknown;
}

interface FoundTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;
const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe.each(ENGINES)('MCP gateway profile URLs and tool budgets on %s', (engine) => {
  let t: TestApp;
  const keys: Record<string, string> = {};
  const clients: Client[] = [];

  const open = async (credential: string, path = '/mcp', headers: Record<string, string> = {}) => {
    const client = new Client({ name: 'budget-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}${path}`), {
        requestInit: { headers: { Authorization: `Bearer ${credential}`, ...headers } },
      }),
    );
    clients.push(client);
    return client;
  };
  const auditOf = async (tenant: string, tool: string): Promise<AuditRow[]> =>
    (await t.http.get(`/v1/tools/audit?tenant_id=${tenant}&tool_name=${tool}`).set(bearer(t.adminKey)).expect(200)).body
      .data;
  const search = async (client: Client, query: string, limit?: number): Promise<FoundTool[]> => {
    const result = await client.callTool({ name: 'search_tools', arguments: { query, ...(limit && { limit }) } });
    expect(result.isError).toBeFalsy();
    const found = (result.structuredContent as { tools: FoundTool[] }).tools;
    expect(JSON.parse(text(result))).toEqual({ tools: found });
    return found;
  };

  beforeAll(async () => {
    t = await startApp(engine, {
      providers: TEST_PROVIDERS,
      config: {
        builtins: { testkit: { enabled: true }, file_search: { enabled: false } },
        gateway: { max_listed_tools: MAX_LISTED_TOOLS },
        auth: { jwt: { secret: JWT_SECRET } },
      },
    });
    for (const tenant of ['acme', 'globex']) keys[tenant] = await memberKey(t, tenant);
    await approvedTool(t, 'ledger-reconcile', {
      description: 'Reconciles the quarterly ledger of Globex against its bank statements.',
      tenant_access: { mode: 'allowlist', allowlist: ['globex'] },
    });
    const ids = async (...names: string[]) => {
      const tools = (await t.http.get('/v1/tools?limit=100').set(bearer(t.adminKey)).expect(200)).body.data;
      return names.map((name) => (tools as { id: string; name: string }[]).find((tool) => tool.name === name)!.id);
    };
    await assignedBundle(t, 'support', await ids('echo', 'progress'), { tenant_id: 'acme', agent_profile: 'support' });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t?.close();
  });

  describe('/mcp/profiles/{agent_profile}', () => {
    it("lists exactly the profile's tools and runs them, audited with the profile", async () => {
      const client = await open(keys.acme, '/mcp/profiles/support');
      expect(await names(client)).toEqual(['echo', 'progress']);
      // The same set an API key gets with the header on /mcp.
      expect(await names(await open(keys.acme, '/mcp', { 'X-Agent-Profile': 'support' }))).toEqual([
        'echo',
        'progress',
      ]);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'from a profile URL' } });
      expect(result.structuredContent).toEqual(
        expect.objectContaining({ echo: { text: 'from a profile URL' }, tenant: 'acme' }),
      );
      const rows = await auditOf('acme', 'echo');
      expect(rows[0]).toEqual(expect.objectContaining({ status: 'success', agent_id: 'support' }));
    });

    it('cannot reach tools outside the profile, and says why as a direct call would', async () => {
      const client = await open(keys.acme, '/mcp/profiles/support');
      const refused = await client.callTool({ name: 'strict', arguments: { user: { name: 'x' } } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain("not in the bundles of agent profile 'support'");
      const rows = await auditOf('acme', 'strict');
      expect(rows[0]).toEqual(expect.objectContaining({ status: 'denied', agent_id: 'support' }));
      // A profile with no bundles of this tenant serves nothing.
      expect(await names(await open(keys.acme, '/mcp/profiles/nobody'))).toEqual([]);
    });

    it('binds a credential that carries a profile to it: the path may name the same one only', async () => {
      const token = await signHs256(JWT_SECRET, { sub: 'agent-7', tenant_id: 'acme', agent_profile: 'support' });
      expect(await names(await open(token, '/mcp/profiles/support'))).toEqual(['echo', 'progress']);
      const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
      const widened = await t.http
        .post('/mcp/profiles/ops')
        .set(bearer(token))
        .set('Accept', 'application/json, text/event-stream')
        .send(list);
      expect(widened.status).toBe(403);
      expect(widened.body.error).toEqual(
        expect.objectContaining({ type: 'permission_error', code: 'agent_profile_mismatch' }),
      );
      const header = await t.http
        .post('/mcp/profiles/ops')
        .set(bearer(keys.acme))
        .set('X-Agent-Profile', 'support')
        .set('Accept', 'application/json, text/event-stream')
        .send(list);
      expect(header.status).toBe(403);
      expect(header.body.error.code).toBe('agent_profile_mismatch');
    });

    it('validates the profile name, and answers like /mcp to GET, a bad Origin and no credentials', async () => {
      const bad = await t.http.post('/mcp/profiles/-no%20spaces').set(bearer(keys.acme)).send({});
      expect(bad.status).toBe(400);
      expect(bad.body.error).toEqual(
        expect.objectContaining({ type: 'invalid_request_error', param: 'agent_profile' }),
      );
      const get = await t.http.get('/mcp/profiles/support').set(bearer(keys.acme));
      expect(get.status).toBe(405);
      expect(get.headers.allow).toBe('POST');
      const origin = await t.http.post('/mcp/profiles/support').set('Origin', 'https://evil.example.test').send({});
      expect(origin.status).toBe(403);
      expect(origin.body.error.code).toBe('origin_not_allowed');
      const anonymous = await t.http.post('/mcp/profiles/support').send({});
      expect(anonymous.status).toBe(401);
    });
  });

  describe(`above gateway.max_listed_tools (${MAX_LISTED_TOOLS})`, () => {
    it('lists only search_tools and call_tool', async () => {
      const listed = (await (await open(keys.acme)).listTools()).tools;
      expect(listed.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
      expect(listed[0].description).toContain(`the ${BUILTINS.length} tools available to you`);
      expect(listed[0].inputSchema.required).toEqual(['query']);
      expect(listed[1].inputSchema.required).toEqual(['name']);
    });

    it("search_tools returns definitions of the caller's own tools only", async () => {
      const acme = await open(keys.acme);
      const found = await search(acme, 'give me back the arguments I pass');
      expect(found[0]).toEqual({
        name: 'echo',
        description: 'Returns its arguments and the calling tenant.',
        inputSchema: expect.objectContaining({ type: 'object' }),
      });
      expect((await search(acme, 'wait a number of milliseconds', 1)).map((tool) => tool.name)).toEqual(['slow']);
      // Another tenant's tool matches every word of the query, yet acme never sees it.
      expect((await search(acme, 'reconcile the quarterly ledger')).map((tool) => tool.name)).not.toContain(
        'ledger-reconcile',
      );
      const globex = await open(keys.globex);
      expect((await search(globex, 'reconcile the quarterly ledger'))[0].name).toBe('ledger-reconcile');
      const broad = await search(acme, 'returns arguments tenant progress steps', 50);
      expect(broad.length).toBeGreaterThan(1);
      for (const tool of broad) expect(BUILTINS).toContain(tool.name);
      // Words that say nothing about a tool match nothing, rather than everything.
      expect(await search(acme, 'what tool can I use', 50)).toEqual([]);
    });

    it('refuses bad search_tools arguments as tool errors', async () => {
      const acme = await open(keys.acme);
      const empty = await acme.callTool({ name: 'search_tools', arguments: { query: ' ' } });
      expect(empty.isError).toBe(true);
      expect(text(empty)).toContain('needs query');
      const limit = await acme.callTool({ name: 'search_tools', arguments: { query: 'echo', limit: 500 } });
      expect(text(limit)).toContain('limit must be an integer from 1 to 50');
    });

    it('call_tool runs a tool exactly as a direct call does, with an audit row of the same shape', async () => {
      const acme = await open(keys.acme);
      const direct = await acme.callTool({ name: 'echo', arguments: { text: 'same' } });
      const meta = await acme.callTool({ name: 'call_tool', arguments: { name: 'echo', arguments: { text: 'same' } } });
      const [viaMeta, viaDirect] = await auditOf('acme', 'echo');
      // The echo tool's output names its own call id: otherwise the results are the same.
      expect((meta.structuredContent as { call_id: string }).call_id).toBe(viaMeta.call_id);
      expect((direct.structuredContent as { call_id: string }).call_id).toBe(viaDirect.call_id);
      expect(text(meta)).toBe(text(direct).replace(viaDirect.call_id, viaMeta.call_id));
      expect(Object.keys(viaMeta).sort()).toEqual(Object.keys(viaDirect).sort());
      // Everything but the row's and the call's own identity and timing.
      const comparable = (row: AuditRow) =>
        Object.fromEntries(
          Object.entries(row).filter(([field]) => !['id', 'timestamp', 'call_id', 'duration_ms'].includes(field)),
        );
      expect(comparable(viaMeta)).toEqual(comparable(viaDirect));
      expect(viaMeta).toEqual(expect.objectContaining({ tool_name: 'echo', status: 'success', tenant_id: 'acme' }));
    });

    it('call_tool takes arguments written as a JSON string, as models sometimes do', async () => {
      const acme = await open(keys.acme);
      const result = await acme.callTool({
        name: 'call_tool',
        arguments: { name: 'echo', arguments: '{"text":"as a string"}' },
      });
      expect(result.structuredContent).toEqual(expect.objectContaining({ echo: { text: 'as a string' } }));
      const broken = await acme.callTool({ name: 'call_tool', arguments: { name: 'echo', arguments: '{"text":' } });
      expect(broken.isError).toBe(true);
      expect(text(broken)).toContain('arguments is not valid JSON');
    });

    it('call_tool passes progress through', async () => {
      const acme = await open(keys.acme);
      const seen: number[] = [];
      const result = await acme.callTool(
        { name: 'call_tool', arguments: { name: 'progress', arguments: { steps: 3 } } },
        CallToolResultSchema,
        { onprogress: (progress) => seen.push(progress.progress) },
      );
      expect(result.structuredContent).toEqual({ steps: 3 });
      expect(seen).toEqual([1, 2, 3]);
    });

    it('call_tool refuses a tool outside the effective set the same way a direct call does', async () => {
      const acme = await open(keys.acme);
      // Another tenant's tool answers exactly like a missing one; only the audit trail says why.
      await expect(acme.callTool({ name: 'ledger-reconcile', arguments: {} })).rejects.toThrow(
        /Unknown tool 'ledger-reconcile'/,
      );
      await expect(
        acme.callTool({ name: 'call_tool', arguments: { name: 'ledger-reconcile', arguments: {} } }),
      ).rejects.toThrow(/Unknown tool 'ledger-reconcile'/);
      const denied = (await auditOf('acme', 'ledger-reconcile')).map((row) => row.status);
      expect(denied).toEqual(['denied', 'denied']);
      await expect(acme.callTool({ name: 'call_tool', arguments: { name: 'ecko' } })).rejects.toThrow(
        /Did you mean 'echo'/,
      );
      await expect(acme.callTool({ name: 'ecko', arguments: {} })).rejects.toThrow(/Did you mean 'echo'/);
    });

    it('lists the tools themselves to a caller whose set fits the budget', async () => {
      // The profile URL narrows acme to two tools, under the budget: no meta-tools, so the names mean
      // catalog tools only.
      const client = await open(keys.acme, '/mcp/profiles/support');
      expect(await names(client)).toEqual(['echo', 'progress']);
      await expect(client.callTool({ name: 'search_tools', arguments: { query: 'echo' } })).rejects.toThrow(
        /Unknown tool 'search_tools'/,
      );
    });
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

describe('profile URLs of /mcp as an OAuth protected resource', () => {
  let t: TestApp;
  let idp: OAuthProvider;
  let base: string;

  beforeAll(async () => {
    idp = await OAuthProvider.start({ tenant_id: 'acme' });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startApp('postgres', {
      port,
      providers: TEST_PROVIDERS,
      config: {
        builtins: { testkit: { enabled: true }, file_search: { enabled: false } },
        auth: { oauth: { issuer: idp.issuer, resource: `${base}/mcp` } },
      },
    });
    const echo = (await t.http.get('/v1/tools?q=echo&type=builtin').set(bearer(t.adminKey))).body.data[0].id;
    await assignedBundle(t, 'support', [echo], { tenant_id: 'acme', agent_profile: 'support' });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  const post = (token?: string) => {
    const request = t.http
      .post('/mcp/profiles/support')
      .set('Accept', 'application/json, text/event-stream')
      .set('Content-Type', 'application/json');
    if (token) request.set(bearer(token));
    return request.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  };

  it("challenges a tokenless request with /mcp's metadata: a profile URL is part of that resource", async () => {
    const response = await post();
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="toolgate:mcp"`,
    );
  });

  it("serves the profile's tools to a token issued for /mcp, and refuses one issued for the profile URL", async () => {
    const token = await idp.mint({ audience: `${base}/mcp`, scope: 'toolgate:mcp' });
    const client = new Client({ name: 'budget-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp/profiles/support`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    try {
      expect(await names(client)).toEqual(['echo']);
    } finally {
      await client.close();
    }
    const elsewhere = await idp.mint({ audience: `${base}/mcp/profiles/support`, scope: 'toolgate:mcp' });
    const refused = await post(elsewhere);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_token');
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, startApp, TestApp } from './support/app';
import { approvedTool, memberKey, toolBody } from './support/catalog';
import { expectError } from './support/errors';
import { MutableMcpServer } from './support/mcp-servers';
import { waitFor } from './support/wait';

interface CatalogTool {
  id: string;
  name: string;
  description: string;
  security_status: string;
  stale: boolean;
  source: { type: string; server_name?: string; tool_name?: string };
}

/** A tool of the server, answering with its own name so a call shows which server ran. */
function offer(server: MutableMcpServer, name: string, label: string): void {
  server.setTool({
    definition: {
      name,
      description: `Looks things up for the ${label} team.`,
      inputSchema: { type: 'object', properties: { id: { type: 'string', maxLength: 20 } } },
    },
    run: (args) => ({ text: `${label} ran ${name} for ${String(args.id)}` }),
  });
}

describe("MCP sources serving tools under their servers' own names (tool_names: upstream)", () => {
  let t: TestApp;
  let refs: MutableMcpServer;
  let other: MutableMcpServer;
  let memberToken: string;
  const clients: Client[] = [];

  const admin = () => bearer(t.adminKey);
  const catalog = async (): Promise<CatalogTool[]> =>
    (await t.http.get('/v1/tools?limit=100').set(admin()).expect(200)).body.data as CatalogTool[];
  const ofSource = async (source: string) =>
    (await catalog())
      .filter((tool) => tool.source.server_name === source)
      .map((tool) => ({ name: tool.name, tool_name: tool.source.tool_name }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  const refresh = async (source: string) =>
    (await t.http.post(`/v1/tools/sources/mcp/${source}/refresh`).set(admin()).expect(200)).body;
  const mcp = async (): Promise<Client> => {
    const client = new Client({ name: 'tool-names-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${memberToken}` } },
      }),
    );
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await startApp('postgres', { config: { builtins: { file_search: { enabled: false } } } });
    memberToken = await memberKey(t, 'acme');
    refs = await new MutableMcpServer().start();
    other = await new MutableMcpServer().start();
    for (const name of ['lookup_user', 'Lookup-Order', 'echo', 'call_tool', 'file_search', 'admin.tools.list'])
      offer(refs, name, 'refs');
    offer(other, 'lookup_user', 'other');
    // A tool of the catalog that a server's tool of the same name must not shadow.
    await approvedTool(t, 'echo');
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t?.close();
    await refs?.stop();
    await other?.stop();
  });

  it('refuses an unknown naming with a 400 in the error envelope, and creates nothing', async () => {
    const bad = await t.http
      .post('/v1/tools/sources/mcp')
      .set(admin())
      .send({ name: 'bad-naming', url: refs.url, tool_names: 'bare' });
    expectError(bad, 400, { code: 'invalid_value', param: 'tool_names' });
    expect(bad.body.error.message).toContain('tool_names must be one of: prefixed, upstream');
    await t.http.get('/v1/tools/sources/mcp/bad-naming').set(admin()).expect(404);
  });

  it('serves tools under their own names, and keeps a prefix (with the reason) where a name is reserved, taken or invalid', async () => {
    const created = await t.http
      .post('/v1/tools/sources/mcp')
      .set(admin())
      .send({ name: 'refs', url: refs.url, tool_names: 'upstream', default_security_status: 'approved' })
      .expect(201);
    expect(created.body.tool_names).toBe('upstream');
    expect(created.body.discovery.added.sort()).toEqual(
      [
        'lookup_user',
        'Lookup-Order',
        'refs-admin-tools-list',
        'refs-call-tool',
        'refs-echo',
        'refs-file-search',
      ].sort(),
    );
    expect(created.body.discovery.name_conflicts).toEqual(
      expect.arrayContaining([
        { tool: 'echo', name: 'refs-echo', reason: "the name 'echo' is taken by catalog tool 'echo'" },
        {
          tool: 'call_tool',
          name: 'refs-call-tool',
          reason: "the name 'call_tool' is reserved for a built-in tool or a gateway meta-tool",
        },
        {
          tool: 'file_search',
          name: 'refs-file-search',
          reason: "the name 'file_search' is reserved for a built-in tool or a gateway meta-tool",
        },
        {
          tool: 'admin.tools.list',
          name: 'refs-admin-tools-list',
          reason: 'its name is not a valid served tool name (1-64 letters, digits, "_" or "-")',
        },
      ]),
    );
    expect(created.body.discovery.name_conflicts).toHaveLength(4);
    // The admin sees the reasons on the source after any refresh, scheduled ones included.
    const source = await t.http.get('/v1/tools/sources/mcp/refs').set(admin()).expect(200);
    expect(source.body.last_discovery.error).toContain(
      "4 tool(s) served under a prefixed name: 'echo' as 'refs-echo' (the name 'echo' is taken by catalog tool 'echo')",
    );

    const served = await (await mcp()).listTools();
    const byName = new Map(served.tools.map((tool) => [tool.name, tool]));
    expect(byName.get('lookup_user')?.description).toBe('Looks things up for the refs team.');
    // The catalog's own echo is the one served under that name.
    expect(byName.get('echo')?.description).toBe('The echo tool.');
    expect(byName.has('refs-echo')).toBe(true);
    expect([...byName.keys()]).not.toContain('call_tool');

    // Names are unique ignoring case: a registration cannot take the lowercase twin of a served name.
    const twin = await t.http.post('/v1/tools').set(admin()).send(toolBody('lookup-order'));
    expectError(twin, 409, { code: 'name_taken', param: 'name', type: 'conflict_error' });

    const called = await (await mcp()).callTool({ name: 'lookup_user', arguments: { id: 'u-1' } });
    expect(called.content).toEqual([{ type: 'text', text: 'refs ran lookup_user for u-1' }]);
    const http = await t.http
      .post('/v1/tool_calls')
      .set(bearer(memberToken))
      .send({ name: 'lookup_user', arguments: { id: 'u-2' } })
      .expect(200);
    expect(http.body.output).toEqual({ content: [{ type: 'text', text: 'refs ran lookup_user for u-2' }] });
  });

  it("keeps a second source's tool of a name already served prefixed, never shadowing the first", async () => {
    const created = await t.http
      .post('/v1/tools/sources/mcp')
      .set(admin())
      .send({ name: 'other', url: other.url, tool_names: 'upstream', default_security_status: 'approved' })
      .expect(201);
    expect(created.body.discovery.added).toEqual(['other-lookup-user']);
    expect(created.body.discovery.name_conflicts).toEqual([
      {
        tool: 'lookup_user',
        name: 'other-lookup-user',
        reason: "the name 'lookup_user' is taken by catalog tool 'lookup_user'",
      },
    ]);
    const called = await (await mcp()).callTool({ name: 'lookup_user', arguments: { id: 'u-3' } });
    expect(called.content).toEqual([{ type: 'text', text: 'refs ran lookup_user for u-3' }]);
  });

  it('renames on the next refresh when the naming changes, keeping each entry and its review', async () => {
    const before = (await catalog()).find((tool) => tool.name === 'lookup_user')!;
    await t.http.put('/v1/tools/sources/mcp/refs').set(admin()).send({ tool_names: 'prefixed' }).expect(200);
    const refreshed = await refresh('refs');
    expect(refreshed.renamed).toEqual([
      { from: 'lookup_user', to: 'refs-lookup-user' },
      { from: 'Lookup-Order', to: 'refs-lookup-order' },
    ]);
    expect(refreshed.name_conflicts).toEqual([]);
    expect(refreshed.added).toEqual([]);
    expect(await ofSource('refs')).toEqual([
      { name: 'refs-admin-tools-list', tool_name: 'admin.tools.list' },
      { name: 'refs-call-tool', tool_name: 'call_tool' },
      { name: 'refs-echo', tool_name: 'echo' },
      { name: 'refs-file-search', tool_name: 'file_search' },
      { name: 'refs-lookup-order', tool_name: 'Lookup-Order' },
      { name: 'refs-lookup-user', tool_name: 'lookup_user' },
    ]);
    const after = (await catalog()).find((tool) => tool.name === 'refs-lookup-user')!;
    expect({ id: after.id, status: after.security_status, stale: after.stale }).toEqual({
      id: before.id,
      status: 'approved',
      stale: false,
    });
    const source = await t.http.get('/v1/tools/sources/mcp/refs').set(admin()).expect(200);
    expect(source.body.last_discovery.error).toBeNull();

    // The name came free: the other source's tool takes it on its next refresh.
    expect((await refresh('other')).renamed).toEqual([{ from: 'other-lookup-user', to: 'lookup_user' }]);
    const served = (await (await mcp()).listTools()).tools.map((tool) => tool.name);
    expect(served).toEqual(expect.arrayContaining(['lookup_user', 'refs-lookup-user']));
    expect(served).not.toContain('other-lookup-user');
    const called = await (await mcp()).callTool({ name: 'lookup_user', arguments: { id: 'u-4' } });
    expect(called.content).toEqual([{ type: 'text', text: 'other ran lookup_user for u-4' }]);
    // The old name is gone, not left dangling beside the new one.
    const old = await t.http
      .post('/v1/tool_calls')
      .set(bearer(memberToken))
      .send({ name: 'other-lookup-user', arguments: {} });
    expectError(old, 400, { code: 'unknown_tool', param: 'name' });

    // Back to upstream: Lookup-Order takes its name again; lookup_user is now the other source's, so it stays prefixed.
    await t.http.put('/v1/tools/sources/mcp/refs').set(admin()).send({ tool_names: 'upstream' }).expect(200);
    const again = await refresh('refs');
    expect(again.renamed).toEqual([{ from: 'refs-lookup-order', to: 'Lookup-Order' }]);
    expect(again.name_conflicts).toEqual(
      expect.arrayContaining([
        {
          tool: 'lookup_user',
          name: 'refs-lookup-user',
          reason: "the name 'lookup_user' is taken by catalog tool 'lookup_user'",
        },
      ]),
    );
  });

  it('refuses a bad naming on update and leaves the source as it was', async () => {
    const bad = await t.http.put('/v1/tools/sources/mcp/refs').set(admin()).send({ tool_names: 'UPSTREAM' });
    expectError(bad, 400, { code: 'invalid_value', param: 'tool_names' });
    const source = await t.http.get('/v1/tools/sources/mcp/refs').set(admin()).expect(200);
    expect(source.body.tool_names).toBe('upstream');
  });

  it('gives a name wanted by two sources registered at the same moment to exactly one of them', async () => {
    offer(other, 'race_probe', 'other');
    const register = (name: string) =>
      t.http
        .post('/v1/tools/sources/mcp')
        .set(admin())
        .send({ name, url: other.url, tool_names: 'upstream' })
        .expect(201);
    const discoveries = (await Promise.all([register('race-a'), register('race-b')])).map(
      (response) => response.body.discovery as { added: string[]; name_conflicts: { tool: string }[] },
    );
    const winners = discoveries.filter((discovery) => discovery.added.includes('race_probe'));
    expect(winners).toHaveLength(1);
    const loser = discoveries.find((discovery) => discovery !== winners[0])!;
    expect(loser.name_conflicts.map((conflict) => conflict.tool).sort()).toEqual(['lookup_user', 'race_probe']);
    expect((await catalog()).filter((tool) => tool.source.tool_name === 'race_probe')).toHaveLength(2);
  });
});

describe('tool_names on a trusted server from the config file', () => {
  let t: TestApp;
  let server: MutableMcpServer;

  beforeAll(async () => {
    server = await new MutableMcpServer().start();
    offer(server, 'get_forecast', 'weather');
    offer(server, 'web_search', 'weather');
    t = await startApp('postgres', {
      config: {
        builtins: { file_search: { enabled: false } },
        mcp_servers: [{ name: 'weather', url: server.url, tool_names: 'upstream' }],
      },
    });
    await waitFor(
      async () =>
        (await t.http.get('/v1/tools?tag=weather').set(bearer(t.adminKey))).body.data.length === 2 &&
        (await t.http.get('/v1/tools/sources/mcp/weather').set(bearer(t.adminKey))).body.last_discovery.status === 'ok',
    );
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  it('serves its tools under their own names, approved, except one named like a built-in that is off here', async () => {
    const tools = (await t.http.get('/v1/tools?tag=weather').set(bearer(t.adminKey)).expect(200)).body
      .data as CatalogTool[];
    expect(tools.map((tool) => [tool.name, tool.source.tool_name, tool.security_status]).sort()).toEqual([
      ['get_forecast', 'get_forecast', 'approved'],
      ['weather-web-search', 'web_search', 'approved'],
    ]);
    const source = await t.http.get('/v1/tools/sources/mcp/weather').set(bearer(t.adminKey)).expect(200);
    expect(source.body).toEqual(expect.objectContaining({ origin: 'config', tool_names: 'upstream' }));
    expect(source.body.last_discovery.error).toContain(
      "'web_search' as 'weather-web-search' (the name 'web_search' is reserved for a built-in tool or a gateway meta-tool)",
    );
  });
});

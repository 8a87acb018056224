import { bearer, startApp, TestApp } from './support/app';
import { memberKey, review } from './support/catalog';
import { ENGINES } from './support/databases';
import { MutableMcpServer } from './support/mcp-servers';

const noFileSearch = { builtins: { file_search: { enabled: false } } };
const OFFICIAL = 'io.modelcontextprotocol.registry/official';
const REVIEW = 'io.toolgate/review';

function upstream(): MutableMcpServer {
  const server = new MutableMcpServer();
  for (const name of ['search', 'create'])
    server.setTool({ definition: { name, description: `The ${name} tool.`, inputSchema: { type: 'object' } } });
  return server;
}

async function registerSource(t: TestApp, name: string, url: string): Promise<void> {
  const res = await t.http.post('/v1/tools/sources/mcp').set(bearer(t.adminKey)).send({ name, url }).expect(201);
  expect(res.body.discovery.status).toBe('ok');
}

/** Approves every tool of a source, admitting the tenants `tenant_access` admits. */
async function approveSource(t: TestApp, source: string, tenantAccess: Record<string, unknown>): Promise<void> {
  const res = await t.http.get(`/v1/tools?type=mcp&limit=100&q=${source}`).set(bearer(t.adminKey)).expect(200);
  const tools = (res.body.data as { id: string; source: { server_name: string } }[]).filter(
    (tool) => tool.source.server_name === source,
  );
  expect(tools.length).toBe(2);
  for (const tool of tools) {
    await t.http.put(`/v1/tools/${tool.id}`).set(bearer(t.adminKey)).send({ tenant_access: tenantAccess }).expect(200);
    await review(t, tool.id, 'reviewed');
    await review(t, tool.id, 'approved');
  }
}

const names = (body: { servers: { server: { name: string } }[] }) => body.servers.map((entry) => entry.server.name);

describe.each(ENGINES)('MCP registry API (%s)', (engine) => {
  let t: TestApp;
  let server: MutableMcpServer;
  let acme: string;
  let globex: string;

  beforeAll(async () => {
    server = await upstream().start();
    t = await startApp(engine, { config: noFileSearch });
    [acme, globex] = [await memberKey(t, 'acme'), await memberKey(t, 'globex')];
    for (const name of ['alpha', 'beta', 'gamma', 'draft']) await registerSource(t, name, server.url);
    await approveSource(t, 'alpha', { mode: 'allowlist', allowlist: ['acme'] });
    await approveSource(t, 'beta', { mode: 'denylist', denylist: ['acme'] });
    await approveSource(t, 'gamma', { mode: 'denylist' });
    // draft's tools stay unreviewed: nobody may use them, so no caller sees the source.
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  it('lists, per tenant, only the sources whose tools the caller may use, in server.json form', async () => {
    const forAcme = await t.http.get('/v0.1/servers').set(bearer(acme)).expect(200);
    expect(names(forAcme.body)).toEqual(['local.toolgate/alpha', 'local.toolgate/gamma']);
    expect(forAcme.body.metadata).toEqual({ count: 2 });
    const forGlobex = await t.http.get('/v0.1/servers').set(bearer(globex)).expect(200);
    expect(names(forGlobex.body)).toEqual(['local.toolgate/beta', 'local.toolgate/gamma']);

    const alpha = forAcme.body.servers[0];
    expect(alpha.server).toEqual({
      $schema: expect.stringMatching(/^https:\/\/static\.modelcontextprotocol\.io\/schemas\/.+\/server\.schema\.json$/),
      name: 'local.toolgate/alpha',
      title: 'alpha',
      description: expect.stringContaining('alpha-create, alpha-search'),
      version: expect.any(String),
      remotes: [
        {
          type: 'streamable-http',
          url: `${t.baseUrl}/mcp`,
          headers: [expect.objectContaining({ name: 'Authorization', isRequired: true, isSecret: true })],
        },
      ],
    });
    expect(alpha._meta[OFFICIAL]).toEqual({
      status: 'active',
      publishedAt: expect.any(String),
      updatedAt: expect.any(String),
      isLatest: true,
    });
    expect(alpha._meta[REVIEW]).toEqual({
      status: 'approved',
      score: expect.any(Number),
      tools: [
        expect.objectContaining({ name: 'alpha-create', security_status: 'approved', score: expect.any(Number) }),
        expect.objectContaining({ name: 'alpha-search', security_status: 'approved', score: expect.any(Number) }),
      ],
    });
  });

  it('pages with an opaque cursor and filters by name', async () => {
    const first = await t.http.get('/v0.1/servers?limit=1').set(bearer(acme)).expect(200);
    expect(names(first.body)).toEqual(['local.toolgate/alpha']);
    expect(first.body.metadata).toEqual({ nextCursor: expect.any(String), count: 1 });
    const second = await t.http
      .get('/v0.1/servers')
      .query({ limit: 1, cursor: first.body.metadata.nextCursor })
      .set(bearer(acme))
      .expect(200);
    expect(names(second.body)).toEqual(['local.toolgate/gamma']);
    expect(second.body.metadata).toEqual({ count: 1 });

    const searched = await t.http.get('/v0.1/servers?search=GAM&version=latest').set(bearer(globex)).expect(200);
    expect(names(searched.body)).toEqual(['local.toolgate/gamma']);
    const future = await t.http.get('/v0.1/servers?updated_since=2999-01-01T00:00:00Z').set(bearer(acme)).expect(200);
    expect(future.body).toEqual({ servers: [], metadata: { count: 0 } });
  });

  it('serves the versions of a server and its latest, and 404 for unknown or invisible ones', async () => {
    const encoded = encodeURIComponent('local.toolgate/alpha');
    const versions = await t.http.get(`/v0.1/servers/${encoded}/versions`).set(bearer(acme)).expect(200);
    expect(names(versions.body)).toEqual(['local.toolgate/alpha']);
    const latest = await t.http.get(`/v0.1/servers/${encoded}/versions/latest`).set(bearer(acme)).expect(200);
    expect(latest.body.server.name).toBe('local.toolgate/alpha');
    expect(latest.body._meta[OFFICIAL].isLatest).toBe(true);
    const exact = await t.http
      .get(`/v0.1/servers/${encoded}/versions/${encodeURIComponent(latest.body.server.version)}`)
      .set(bearer(acme))
      .expect(200);
    expect(exact.body).toEqual(latest.body);

    const missingVersion = await t.http.get(`/v0.1/servers/${encoded}/versions/0.0.1`).set(bearer(acme)).expect(404);
    expect(missingVersion.body.error).toEqual(expect.objectContaining({ type: 'not_found_error', param: 'version' }));
    // beta exists, but acme may not use it: answered exactly like a name that does not exist.
    for (const name of ['local.toolgate/beta', 'local.toolgate/nope', 'local.toolgate/draft']) {
      const res = await t.http
        .get(`/v0.1/servers/${encodeURIComponent(name)}/versions/latest`)
        .set(bearer(acme))
        .expect(404);
      expect(res.body.error).toEqual(expect.objectContaining({ type: 'not_found_error', code: 'not_found' }));
    }
  });

  it('refuses bad query parameters and missing credentials in the error envelope', async () => {
    const limit = await t.http.get('/v0.1/servers?limit=1000').set(bearer(acme)).expect(400);
    expect(limit.body.error).toEqual(expect.objectContaining({ type: 'invalid_request_error', param: 'limit' }));
    const since = await t.http.get('/v0.1/servers?updated_since=yesterday').set(bearer(acme)).expect(400);
    expect(since.body.error).toEqual(expect.objectContaining({ param: 'updated_since' }));
    const anonymous = await t.http.get('/v0.1/servers').expect(401);
    expect(anonymous.body.error.type).toBe('authentication_error');
  });

  it('answers CORS preflights on /v0.1 only', async () => {
    const preflight = await t.http
      .options('/v0.1/servers')
      .set('Origin', 'https://editor.example')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization')
      .expect(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toContain('GET');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/authorization/i);
    const get = await t.http.get('/v0.1/servers').set('Origin', 'https://editor.example').set(bearer(acme)).expect(200);
    expect(get.headers['access-control-allow-origin']).toBe('*');
    const v1 = await t.http.get('/v1/tools').set('Origin', 'https://editor.example').set(bearer(acme)).expect(200);
    expect(v1.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('imports a server.json remote as a source, discovered at once', async () => {
    const document = {
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json',
      name: 'io.example/Weather_API',
      description: 'Weather forecasts',
      version: '1.2.0',
      remotes: [{ type: 'streamable-http', url: server.url }],
    };
    const res = await t.http.post('/v1/tools/sources/mcp/import').set(bearer(t.adminKey)).send(document).expect(201);
    expect(res.body.object).toBe('list');
    expect(res.body.data).toEqual([
      expect.objectContaining({
        object: 'mcp_source',
        name: 'weather-api',
        url: server.url,
        transport: 'streamable_http',
        discovery: expect.objectContaining({
          status: 'ok',
          added: expect.arrayContaining(['weather-api-create', 'weather-api-search']),
        }),
      }),
    ]);
    await t.http.get('/v1/tools/sources/mcp/weather-api').set(bearer(t.adminKey)).expect(200);
    const again = await t.http.post('/v1/tools/sources/mcp/import').set(bearer(t.adminKey)).send(document).expect(409);
    expect(again.body.error.code).toBe('name_taken');
    await t.http.post('/v1/tools/sources/mcp/import').set(bearer(acme)).send(document).expect(403);
  });

  it('refuses package entries and invalid documents with a clear 400, creating nothing', async () => {
    const before = await t.http.get('/v1/tools/sources/mcp?limit=100').set(bearer(t.adminKey)).expect(200);
    const packaged = await t.http
      .post('/v1/tools/sources/mcp/import')
      .set(bearer(t.adminKey))
      .send({
        name: 'io.example/local-files',
        version: '1.0.0',
        description: 'Files',
        packages: [
          { registryType: 'npm', identifier: '@example/files', version: '1.0.0', transport: { type: 'stdio' } },
        ],
      })
      .expect(400);
    expect(packaged.body.error).toEqual({
      type: 'invalid_request_error',
      code: 'stdio_not_allowed',
      param: 'packages',
      message: expect.stringContaining('stdio servers can only be configured in the config file'),
    });

    const cases: [object, string | null][] = [
      [{ name: 'not reverse dns', remotes: [{ type: 'sse', url: server.url }] }, 'name'],
      [{ name: 'io.example/x', remotes: [{ type: 'websocket', url: server.url }] }, 'remotes[0].type'],
      [{ name: 'io.example/x', remotes: [{ type: 'sse', url: 'not a url' }] }, 'remotes[0].url'],
      [{ name: 'io.example/x', remotes: [{ type: 'sse', url: 'https://{tenant}.example.com/sse' }] }, 'remotes[0].url'],
      [{ name: 'io.example/x', remotes: { type: 'sse' } }, 'remotes'],
      [{ name: 'io.example/x' }, 'remotes'],
      [{ name: 'io.example/x', remotes: [{ type: 'sse', url: 'http://169.254.169.254/sse' }] }, 'remotes[0].url'],
    ];
    for (const [document, param] of cases) {
      const res = await t.http.post('/v1/tools/sources/mcp/import').set(bearer(t.adminKey)).send(document);
      expect({ status: res.status, param: res.body.error?.param }).toEqual({ status: 400, param });
    }
    const after = await t.http.get('/v1/tools/sources/mcp?limit=100').set(bearer(t.adminKey)).expect(200);
    expect(after.body.data.length).toBe(before.body.data.length);
  });
});

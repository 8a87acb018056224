import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { bearer, startApp, TestApp } from './support/app';
import { memberKey, review, toolBody } from './support/catalog';
import { ENGINES, Engine } from './support/databases';
import { expectError } from './support/errors';
import { MutableMcpServer } from './support/mcp-servers';

const noFileSearch = { builtins: { file_search: { enabled: false } } };

function upstreamTool(name: string, inputSchema: unknown, outputSchema?: unknown): { definition: Tool } {
  return {
    definition: {
      name,
      description: `Looks up ${name} records.`,
      inputSchema: inputSchema as Tool['inputSchema'],
      ...(outputSchema !== undefined && { outputSchema: outputSchema as Tool['outputSchema'] }),
    },
  };
}

/** tools/list through the official SDK client, which checks every tool it receives. */
async function sdkListing(t: TestApp, key: string): Promise<Tool[]> {
  const client = new Client({ name: 'catalog-writes-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

describe.each(ENGINES)('every catalog write keeps tools/list valid for MCP clients (%s)', (engine: Engine) => {
  let t: TestApp;
  let upstream: MutableMcpServer;
  let acme: string;
  const admin = () => bearer(t.adminKey);
  const listedSchemas = async () =>
    Object.fromEntries((await sdkListing(t, acme)).map((tool) => [tool.name, tool.inputSchema]));

  beforeAll(async () => {
    upstream = await new MutableMcpServer().start();
    upstream.setTool(upstreamTool('words', { type: 'object', properties: { q: { type: 'string', maxLength: 50 } } }));
    upstream.setTool(upstreamTool('untyped', { properties: { q: { type: 'string', maxLength: 50 } } }));
    upstream.setTool(upstreamTool('stringly', { type: 'string' }));
    upstream.setTool(upstreamTool('numbered', { type: 'object', properties: { q: 7 } }));
    upstream.setTool(upstreamTool('listy', { type: 'object' }, { type: 'array' }));
    t = await startApp(engine, { config: noFileSearch });
    acme = await memberKey(t, 'acme');
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await upstream?.stop();
  });

  it('normalises or refuses schemas on create and update, and the SDK lists every tool after each write', async () => {
    // Create: {} is a schema of no parameters, stored in the shape MCP requires.
    const created = await t.http
      .post('/v1/tools')
      .set(admin())
      .send(toolBody('no-params', { schema: {} }));
    expect(created.status).toBe(201);
    expect(created.body.schema).toEqual({ type: 'object' });
    await review(t, created.body.id, 'reviewed');
    await review(t, created.body.id, 'approved');
    expect((await listedSchemas())['no-params']).toEqual({ type: 'object' });

    const refusals: [unknown, string][] = [
      [{ type: 'string' }, 'schema.type'],
      [{ type: 'object', properties: { q: 'string' } }, 'schema.properties.q'],
      [{ type: 'object', properties: [] }, 'schema.properties'],
      [{ type: 'object', required: 'q' }, 'schema.required'],
    ];
    for (const [schema, param] of refusals) {
      const res = await t.http.post('/v1/tools').set(admin()).send(toolBody('refused-tool', { schema }));
      expectError(res, 400, { code: 'invalid_schema', param });
    }

    // Update: the same rules; boolean property schemas are spelt out.
    const updated = await t.http
      .put(`/v1/tools/${created.body.id}`)
      .set(admin())
      .send({ schema: { properties: { q: true, never: false } } });
    expect(updated.status).toBe(200);
    expect(updated.body.schema).toEqual({ type: 'object', properties: { q: {}, never: { not: {} } } });
    for (const [schema, param] of refusals) {
      const res = await t.http.put(`/v1/tools/${created.body.id}`).set(admin()).send({ schema });
      expectError(res, 400, { code: 'invalid_schema', param });
    }
    await review(t, created.body.id, 'reviewed');
    await review(t, created.body.id, 'approved');
    expect((await listedSchemas())['no-params']).toEqual(updated.body.schema);
    const fetched = await t.http.get(`/v1/tools/${created.body.id}`).set(admin()).expect(200);
    expect(fetched.body.schema).toEqual(updated.body.schema);

    // Discovery: a tool that only needs `type` is normalised; one MCP clients could not parse is left out, named.
    const source = await t.http
      .post('/v1/tools/sources/mcp')
      .set(admin())
      .send({ name: 'upstream', url: upstream.url, default_security_status: 'approved' })
      .expect(201);
    expect(source.body.discovery.status).toBe('ok');
    expect([...source.body.discovery.added].sort()).toEqual(['upstream-untyped', 'upstream-words']);
    expect(source.body.discovery.rejected).toEqual([
      { tool: 'stringly', param: 'input_schema.type', message: expect.stringContaining('must be "object"') },
      { tool: 'numbered', param: 'input_schema.properties.q', message: expect.any(String) },
      { tool: 'listy', param: 'output_schema.type', message: expect.any(String) },
    ]);
    let listed = await listedSchemas();
    expect(listed['upstream-untyped']).toEqual({
      type: 'object',
      properties: { q: { type: 'string', maxLength: 50 } },
    });
    expect(listed['upstream-words']).toBeDefined();

    // The normalised tool is callable: the definition check sees the server's tool as discovery stored it.
    const call = await t.http
      .post('/v1/tool_calls')
      .set(bearer(acme))
      .send({ name: 'upstream-untyped', arguments: { q: 'x' } });
    expect(call.status).toBe(200);
    expect(call.body.status).toBe('completed');

    // Refresh: a tool that turns unparseable upstream is left out and its entry goes stale.
    upstream.setTool(upstreamTool('words', { type: 'object', properties: { q: null } }));
    const refresh = await t.http.post('/v1/tools/sources/mcp/upstream/refresh').set(admin()).expect(200);
    expect(refresh.body.stale).toEqual(['upstream-words']);
    expect(refresh.body.rejected.map((r: { tool: string }) => r.tool)).toContain('words');
    listed = await listedSchemas();
    expect(listed['upstream-words']).toBeUndefined();
    expect(listed['upstream-untyped']).toBeDefined();

    // Import: the same screening as any discovery.
    const imported = await t.http
      .post('/v1/tools/sources/mcp/import')
      .set(admin())
      .send({
        name: 'io.example/imported',
        version: '1.0.0',
        remotes: [{ type: 'streamable-http', url: upstream.url }],
      })
      .expect(201);
    expect(imported.body.data[0].discovery.added).toEqual(['imported-untyped']);
    expect(imported.body.data[0].discovery.rejected.map((r: { tool: string }) => r.tool).sort()).toEqual([
      'listy',
      'numbered',
      'stringly',
      'words',
    ]);
    const importedId = (await toolId(t, 'imported-untyped'))!;
    await review(t, importedId, 'reviewed');
    await review(t, importedId, 'approved');
    expect((await listedSchemas())['imported-untyped']).toEqual(listed['upstream-untyped']);

    // Delete.
    await t.http.delete(`/v1/tools/${created.body.id}`).set(admin()).expect(200);
    listed = await listedSchemas();
    expect(listed['no-params']).toBeUndefined();
    for (const schema of Object.values(listed)) expect(schema.type).toBe('object');
  });

  it('stores every documented field of each create request', async () => {
    const body = {
      name: 'round-trip',
      description: 'Lists issues in a repository.',
      source: {
        type: 'mcp',
        server_url: 'https://mcp.internal/github',
        server_name: 'github-mcp',
        tool_name: 'list_issues',
        credential_key: 'github_token',
      },
      schema: { type: 'object', properties: { repo: { type: 'string', maxLength: 100 } }, required: ['repo'] },
      permissions: ['network_external'],
      tags: ['development', 'github'],
      tenant_access: { mode: 'denylist', denylist: ['globex'] },
      audit_level: 'full',
      output_scan: 'block',
      rate_limit: { per_minute: 30, per_hour: 500, per_day: 5000 },
      security_status: 'blocked',
    };
    const created = await t.http.post('/v1/tools').set(admin()).send(body).expect(201);
    const fetched = await t.http.get(`/v1/tools/${created.body.id}`).set(admin()).expect(200);
    expect(fetched.body).toEqual(expect.objectContaining(body));

    const sandbox = {
      ...toolBody('sandboxed'),
      source: { type: 'sandbox', template: 'antwort-browser', entrypoint: '/usr/local/bin/browse' },
    };
    const sandboxed = await t.http.post('/v1/tools').set(admin()).send(sandbox).expect(201);
    const got = await t.http.get(`/v1/tools/${sandboxed.body.id}`).set(admin()).expect(200);
    expect(got.body.source).toEqual(sandbox.source);

    const bundle = {
      name: 'GitHub Suite',
      description: 'Issues and more.',
      tools: [created.body.id],
      tags: ['github'],
    };
    const bundleId = (await t.http.post('/v1/tools/bundles').set(admin()).send(bundle).expect(201)).body.id;
    const gotBundle = await t.http.get(`/v1/tools/bundles/${bundleId}`).set(admin()).expect(200);
    expect(gotBundle.body).toEqual(expect.objectContaining(bundle));

    const mcpSource = {
      name: 'documented',
      url: upstream.url,
      auth: { type: 'api_key', secret_ref: 'documented-key', header: 'X-API-Key', credential_key: 'documented_token' },
      auto_discover: false,
      refresh_interval: '30m',
      default_security_status: 'reviewed',
      default_audit_level: 'full',
      transport: 'streamable_http',
    };
    await t.http.post('/v1/tools/sources/mcp').set(admin()).send(mcpSource).expect(201);
    const gotSource = await t.http.get('/v1/tools/sources/mcp/documented').set(admin()).expect(200);
    expect(gotSource.body).toEqual(expect.objectContaining(mcpSource));

    const key = { name: 'ci-pipeline', tenant_id: 'acme', role: 'admin', expires_at: '2099-01-01T00:00:00Z' };
    const keyId = (await t.http.post('/v1/admin/api_keys').set(admin()).send(key).expect(201)).body.id;
    const gotKey = await t.http.get(`/v1/admin/api_keys/${keyId}`).set(admin()).expect(200);
    expect(gotKey.body).toEqual(expect.objectContaining({ ...key, expires_at: '2099-01-01T00:00:00.000Z' }));
  });
});

async function toolId(t: TestApp, name: string): Promise<string | undefined> {
  const res = await t.http.get(`/v1/tools?q=${name}`).set(bearer(t.adminKey)).expect(200);
  return (res.body.data as { id: string; name: string }[]).find((tool) => tool.name === name)?.id;
}

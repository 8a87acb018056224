import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, startApp, TestApp } from './support/app';
import { memberKey } from './support/catalog';
import { ENGINES } from './support/databases';
import { expectError } from './support/errors';
import { MutableMcpServer } from './support/mcp-servers';
import { freePort, InMemoryOAuthClient } from './support/oauth-client';
import { OAuthProvider } from './support/oauth-provider';
import { TEST_PROVIDERS } from './support/test-providers';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'oauth-test', version: '1.0.0' } },
};
const MCP_HEADERS = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };

describe.each(ENGINES)('/mcp as an OAuth protected resource (%s)', (engine) => {
  let t: TestApp;
  let idp: OAuthProvider;
  let resource: string;
  let metadataUrl: string;
  let upstream: MutableMcpServer;

  beforeAll(async () => {
    idp = await OAuthProvider.start({ tenant_id: 'acme' });
    upstream = await new MutableMcpServer().start();
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
    t = await startApp(engine, {
      port,
      providers: TEST_PROVIDERS,
      config: {
        builtins: { testkit: { enabled: true }, file_search: { enabled: false } },
        auth: { oauth: { issuer: idp.issuer, resource } },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await idp?.close();
    await upstream?.stop();
  });

  it('answers a tokenless request with 401 and a challenge naming its metadata and scope', async () => {
    const response = await t.http.post('/mcp').set(MCP_HEADERS).send(INITIALIZE);
    expectError(response, 401, { code: 'missing_credentials' });
    expect(response.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${metadataUrl}", scope="toolgate:mcp"`,
    );
  });

  it('serves the protected resource metadata at the root and path-aware addresses', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const response = await t.http.get(path).expect(200);
      expect(response.body).toEqual({
        resource,
        authorization_servers: [idp.issuer],
        scopes_supported: ['toolgate:mcp'],
        bearer_methods_supported: ['header'],
        resource_name: 'Toolgate MCP gateway',
      });
    }
  });

  it('documents the metadata routes as open in the OpenAPI document', async () => {
    const document = (await t.http.get('/openapi.json').expect(200)).body;
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      expect(document.paths[path].get.security).toBeUndefined();
      expect(document.paths[path].get.responses['200']).toBeDefined();
    }
    expect(document.paths['/mcp'].post.responses['403']).toBeDefined();
  });

  it('refuses a token issued for another audience, or none', async () => {
    for (const audience of ['http://127.0.0.1:1/mcp', undefined]) {
      const token = await idp.mint({ audience, scope: 'toolgate:mcp' });
      const response = await t.http.post('/mcp').set(MCP_HEADERS).set(bearer(token)).send(INITIALIZE);
      expectError(response, 401, { code: 'invalid_token' });
      expect(response.headers['www-authenticate']).toBe(
        `Bearer error="invalid_token", resource_metadata="${metadataUrl}", scope="toolgate:mcp"`,
      );
    }
  });

  it('refuses a token that would live longer than auth.jwt.max_token_lifetime', async () => {
    const token = await idp.mint({ audience: resource, scope: 'toolgate:mcp', expiresIn: 10 * 365 * 86_400 });
    const response = await t.http.post('/mcp').set(MCP_HEADERS).set(bearer(token)).send(INITIALIZE);
    expectError(response, 401, { code: 'invalid_token' });
    expect(response.body.error.message).toContain('auth.jwt.max_token_lifetime');
    const hour = await idp.mint({ audience: resource, scope: 'toolgate:mcp', expiresIn: 3600 });
    expect((await t.http.post('/mcp').set(MCP_HEADERS).set(bearer(hour)).send(INITIALIZE)).status).toBe(200);
  });

  it('answers a token without the scope with 403 insufficient_scope', async () => {
    for (const scope of [undefined, 'openid profile']) {
      const token = await idp.mint({ audience: resource, scope });
      const response = await t.http.post('/mcp').set(MCP_HEADERS).set(bearer(token)).send(INITIALIZE);
      expectError(response, 403, { code: 'insufficient_scope' });
      expect(response.headers['www-authenticate']).toBe(
        `Bearer error="insufficient_scope", resource_metadata="${metadataUrl}", scope="toolgate:mcp"`,
      );
    }
  });

  it("completes the MCP SDK client's OAuth flow and lists the tenant's tools", async () => {
    const oauth = new InMemoryOAuthClient();
    const first = new StreamableHTTPClientTransport(new URL(resource), { authProvider: oauth });
    await expect(new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(oauth.authorizationUrl?.searchParams.get('resource')).toBe(resource);
    // The user's browser: the provider approves at once and redirects back with a code.
    const approval = await fetch(oauth.authorizationUrl!, { redirect: 'manual' });
    expect(approval.status).toBe(302);
    const code = new URL(approval.headers.get('location')!).searchParams.get('code')!;
    await first.finishAuth(code);
    expect(idp.tokenResources.at(-1)).toBe(resource);

    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: oauth }));
    try {
      const viaOAuth = (await client.listTools()).tools.map((tool) => tool.name).sort();
      const viaKey = await listWithKey(await memberKey(t, 'acme'));
      expect(viaOAuth.length).toBeGreaterThan(0);
      expect(viaOAuth).toEqual(viaKey);
    } finally {
      await client.close();
    }
  });

  it('keeps accepting API keys on /mcp', async () => {
    expect((await listWithKey(await memberKey(t, 'globex'))).length).toBeGreaterThan(0);
  });

  it("never forwards the client's access token to an upstream MCP source", async () => {
    upstream.setTool({
      definition: { name: 'lookup', description: 'Looks a thing up.', inputSchema: { type: 'object' } },
    });
    await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'crm', url: upstream.url })
      .expect(201);
    const listed = await t.http.get('/v1/tools?q=crm-lookup').set(bearer(t.adminKey)).expect(200);
    const toolId = listed.body.data.find((tool: { name: string }) => tool.name === 'crm-lookup').id;
    for (const decision of ['reviewed', 'approved'])
      await t.http
        .post(`/v1/tools/${toolId}/review`)
        .set(bearer(t.adminKey))
        .send({ decision, notes: 'ok' })
        .expect(200);

    const token = await idp.mint({ audience: resource, scope: 'toolgate:mcp' });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: bearer(token) } }),
    );
    try {
      const result = await client.callTool({ name: 'crm-lookup', arguments: {} });
      expect(result.isError ?? false).toBe(false);
      expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    } finally {
      await client.close();
    }
    expect(upstream.authorizations.length).toBeGreaterThan(0);
    expect(upstream.authorizations.every((authorization) => authorization === undefined)).toBe(true);
  });

  async function listWithKey(key: string): Promise<string[]> {
    const client = new Client({ name: 'key-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: bearer(key) } }),
    );
    try {
      return (await client.listTools()).tools.map((tool) => tool.name).sort();
    } finally {
      await client.close();
    }
  }
});

describe('/mcp with its OAuth issuer unreachable', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const idp = await OAuthProvider.start({ tenant_id: 'acme' });
    token = await idp.mint({ audience: resource, scope: 'toolgate:mcp' });
    await idp.close();
    t = await startApp('postgres', { port, config: { auth: { oauth: { issuer: idp.issuer, resource } } } });
  }, 120_000);
  afterAll(() => t?.close());

  it('answers 503 for that request and keeps serving API keys', async () => {
    const response = await t.http.post('/mcp').set(MCP_HEADERS).set(bearer(token)).send(INITIALIZE);
    expectError(response, 503, { code: 'issuer_unavailable' });
    expect(response.body.error.message).toContain('auth.oauth.jwks_url');
    const withKey = await t.http.post('/mcp').set(MCP_HEADERS).set(bearer(t.adminKey)).send(INITIALIZE);
    expect(withKey.status).toBe(200);
  });
});

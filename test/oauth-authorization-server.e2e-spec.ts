import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as PgClient } from 'pg';
import { keyId } from '../src/tools/catalog/credentials/credential-cipher';
import { bearer, Replicas, startApp, startReplicas, TestApp } from './support/app';
import { memberKey } from './support/catalog';
import { createTestDatabase, ENGINES, TestDatabase } from './support/databases';
import { expectError } from './support/errors';
import { ManualClock } from './support/manual-clock';
import { freePort, InMemoryOAuthClient } from './support/oauth-client';
import { OAuthProvider } from './support/oauth-provider';
import { TEST_PROVIDERS } from './support/test-providers';
import { waitFor } from './support/wait';

const REDIRECT = 'http://127.0.0.1:1/callback';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'as-test', version: '1.0.0' } },
};
const MCP_HEADERS = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };

/** A PKCE pair as a client makes it (RFC 7636 S256). */
function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The hidden fields of the consent form, as a browser would post them back. */
function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[match[1]] = match[2].replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
  }
  return fields;
}

describe.each(ENGINES)('the built-in OAuth authorization server (%s)', (engine) => {
  let t: TestApp;
  let clock: ManualClock;
  let base: string;
  let resource: string;
  let acmeKey: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    resource = `${base}/mcp`;
    clock = new ManualClock();
    t = await startApp(engine, {
      port,
      clock,
      providers: TEST_PROVIDERS,
      config: {
        builtins: { testkit: { enabled: true }, file_search: { enabled: false } },
        auth: {
          oauth: {
            resource,
            authorization_server: {
              enabled: true,
              client_id_metadata_allow_local: true,
              registration_rate_limit: { per_minute: 10_000 },
              unused_client_ttl: '1h',
            },
          },
        },
      },
    });
    acmeKey = await memberKey(t, 'acme');
  }, 120_000);
  afterAll(() => t?.close());
  afterEach(() => clock.set(new Date()));

  /** The browser's part: load the consent page, then post the form with the API key. Answers the redirect. */
  async function consent(authorizationUrl: string, apiKey: string, decision = 'approve'): Promise<URL> {
    const page = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(page.status).toBe(200);
    const cookie = page.headers.get('set-cookie')!.split(';')[0];
    const fields = hiddenFields(await page.text());
    const posted = await fetch(`${base}/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
      body: new URLSearchParams({ ...fields, api_key: apiKey, decision }),
    });
    expect(posted.status).toBe(303);
    return new URL(posted.headers.get('location')!);
  }

  async function register(redirectUris = [REDIRECT], name = 'manual client'): Promise<string> {
    const response = await t.http
      .post('/register')
      .send({ client_name: name, redirect_uris: redirectUris })
      .expect(201);
    return response.body.client_id as string;
  }

  function authorizeUrl(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'xyz',
      resource,
      ...extra,
    });
    return `${base}/authorize?${query}`;
  }

  /** A registered client's code, from the consent step. */
  async function codeFor(apiKey = acmeKey, clientId?: string) {
    const client = clientId ?? (await register());
    const { verifier, challenge } = pkce();
    const back = await consent(authorizeUrl(client, challenge), apiKey);
    expect(back.searchParams.get('state')).toBe('xyz');
    return { clientId: client, verifier, code: back.searchParams.get('code')! };
  }

  function exchange(grant: { clientId: string; verifier: string; code: string }, extra: Record<string, string> = {}) {
    return t.http
      .post('/token')
      .type('form')
      .send({
        grant_type: 'authorization_code',
        client_id: grant.clientId,
        code: grant.code,
        code_verifier: grant.verifier,
        redirect_uri: REDIRECT,
        resource,
        ...extra,
      });
  }

  function refresh(clientId: string, refreshToken: string) {
    return t.http
      .post('/token')
      .type('form')
      .send({ grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken, resource });
  }

  function initialize(token: string) {
    return t.http.post('/mcp').set(MCP_HEADERS).set(bearer(token)).send(INITIALIZE);
  }

  it('publishes its metadata and keys, and names itself in the protected resource metadata', async () => {
    const metadata = (await t.http.get('/.well-known/oauth-authorization-server').expect(200)).body;
    expect(metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
    });
    const jwks = (await t.http.get('/.well-known/jwks.json').expect(200)).body;
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' })]);
    expect(jwks.keys[0].d).toBeUndefined();
    const resourceMetadata = (await t.http.get('/.well-known/oauth-protected-resource/mcp').expect(200)).body;
    expect(resourceMetadata.authorization_servers).toEqual([base]);
  });

  it('documents its routes as open in the OpenAPI document', async () => {
    const document = (await t.http.get('/openapi.json').expect(200)).body;
    for (const [path, method, status] of [
      ['/.well-known/oauth-authorization-server', 'get', '200'],
      ['/.well-known/jwks.json', 'get', '200'],
      ['/register', 'post', '201'],
      ['/token', 'post', '200'],
      ['/authorize', 'get', '200'],
      ['/authorize', 'post', '303'],
    ]) {
      expect(document.paths[path][method].security).toBeUndefined();
      expect(document.paths[path][method].responses[status]).toBeDefined();
    }
  });

  it("completes the MCP SDK client's own flow, then lists and calls tools as the API key's tenant", async () => {
    const oauth = new InMemoryOAuthClient(REDIRECT, 'SDK <client>');
    const first = new StreamableHTTPClientTransport(new URL(resource), { authProvider: oauth });
    await expect(new Client({ name: 'as-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const authorizationUrl = oauth.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${base}/authorize`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(resource);

    const page = await fetch(authorizationUrl, { redirect: 'manual' });
    const html = await page.text();
    expect(html).toContain('SDK &#60;client&#62;');
    expect(html).not.toContain('SDK <client>');
    expect(html).toContain('127.0.0.1:1');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('set-cookie')).toMatch(/HttpOnly/i);

    const back = await consent(authorizationUrl.toString(), acmeKey);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('iss')).toBe(base);
    await first.finishAuth(back.searchParams.get('code')!);
    expect(oauth.tokens()?.refresh_token).toMatch(/^tgr_/);

    const client = new Client({ name: 'as-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: oauth }));
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      const echo = tools.find((name) => name.includes('echo'))!;
      expect(echo).toBeDefined();
      const result = await client.callTool({ name: echo, arguments: { text: 'hi' } });
      expect(result.isError ?? false).toBe(false);
      expect(JSON.stringify(result.content)).toContain('acme');
    } finally {
      await client.close();
    }
  });

  it('refuses a code with the wrong PKCE verifier, and the code is spent by that attempt', async () => {
    const grant = await codeFor();
    const wrong = await exchange({ ...grant, verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/code_verifier/) });
    const retried = await exchange(grant);
    expect(retried.status).toBe(400);
    expect(retried.body.error).toBe('invalid_grant');
  });

  it('exchanges a code once only', async () => {
    const grant = await codeFor();
    const first = await exchange(grant).expect(200);
    expect(first.body).toMatchObject({ token_type: 'Bearer', scope: 'toolgate:mcp', expires_in: 600 });
    expect(first.headers['cache-control']).toBe('no-store');
    const again = await exchange(grant);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('refuses a code past its 60 seconds, or exchanged by another client', async () => {
    const late = await codeFor();
    clock.advance(61_000);
    expect((await exchange(late)).body.error).toBe('invalid_grant');
    clock.set(new Date());
    const stolen = await codeFor();
    const other = await register();
    expect((await exchange({ ...stolen, clientId: other })).body.error).toBe('invalid_grant');
  });

  it('refuses plain or missing PKCE by redirecting the error to the client', async () => {
    const clientId = await register();
    const refused: Record<string, string>[] = [{ code_challenge_method: 'plain' }, { code_challenge: '' }];
    for (const extra of refused) {
      const response = await fetch(authorizeUrl(clientId, pkce().challenge, extra), { redirect: 'manual' });
      expect(response.status).toBe(303);
      const back = new URL(response.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('state')).toBe('xyz');
      // RFC 9207: errors name their issuer too, so a client can tell which server answered.
      expect(back.searchParams.get('iss')).toBe(base);
    }
  });

  it('never redirects to an unregistered redirect URI, and matches loopback URIs on any port', async () => {
    const clientId = await register();
    for (const redirect of ['https://evil.example/callback', 'http://127.0.0.1:1/elsewhere', '']) {
      const response = await fetch(authorizeUrl(clientId, pkce().challenge, { redirect_uri: redirect }), {
        redirect: 'manual',
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toMatch(/is not registered for this client|has no redirect_uri/);
    }
    const unknownClient = await fetch(authorizeUrl('tgc_nobody', pkce().challenge), { redirect: 'manual' });
    expect(unknownClient.status).toBe(400);
    expect(unknownClient.headers.get('location')).toBeNull();

    const otherPort = 'http://127.0.0.1:49152/callback';
    const { verifier, challenge } = pkce();
    const back = await consent(authorizeUrl(clientId, challenge, { redirect_uri: otherPort }), acmeKey);
    expect(back.origin + back.pathname).toBe(otherPort);
    const code = back.searchParams.get('code')!;
    await exchange({ clientId, verifier, code }, { redirect_uri: otherPort }).expect(200);
  });

  it('shows an unsupported response_type on an error page instead of redirecting (no open redirect)', async () => {
    const landing = 'https://evil.example/landing';
    const clientId = await register([landing]);
    for (const responseType of ['token', 'code token', '']) {
      const url = authorizeUrl(clientId, pkce().challenge, { redirect_uri: landing, response_type: responseType });
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('response_type');
    }
  });

  it('refuses redirect URIs that read as another place (user information, backslashes)', async () => {
    const clientId = await register(['http://127.0.0.1/cb']);
    for (const redirect of [
      'http://127.0.0.1:9999\\@evil.example/cb',
      'http://127.0.0.1:9999@evil.example/cb',
      'http://evil.example@127.0.0.1:9999/cb',
      'http://127.0.0.1:9999/@evil.example/cb',
    ]) {
      const response = await fetch(authorizeUrl(clientId, pkce().challenge, { redirect_uri: redirect }), {
        redirect: 'manual',
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('is not registered for this client');
    }
    const backslash = await t.http
      .post('/register')
      .send({ redirect_uris: ['http://127.0.0.1:9999\\@evil.example/cb'] });
    expect(backslash.status).toBe(400);
    expect(backslash.body.error).toBe('invalid_redirect_uri');
    const page = await fetch(authorizeUrl(clientId, pkce().challenge, { redirect_uri: 'http://127.0.0.1:9999/cb' }));
    expect(page.status).toBe(200);
  });

  it('takes application_type (web or native) at registration and answers it back', async () => {
    const native = await t.http
      .post('/register')
      .send({ application_type: 'native', redirect_uris: [REDIRECT] })
      .expect(201);
    expect(native.body.application_type).toBe('native');
    const unknown = await t.http.post('/register').send({ application_type: 'desktop', redirect_uris: [REDIRECT] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: 'invalid_client_metadata', error_description: expect.stringMatching(/web/) });
    const web = await t.http
      .post('/register')
      .send({ application_type: 'web', redirect_uris: ['https://app.example/callback'] })
      .expect(201);
    expect(web.body.application_type).toBe('web');
    for (const loopback of [REDIRECT, 'http://localhost:8080/cb', 'http://[::1]/cb']) {
      const refused = await t.http
        .post('/register')
        .send({ application_type: 'web', redirect_uris: ['https://app.example/callback', loopback] });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        error: 'invalid_redirect_uri',
        error_description: expect.stringContaining('application_type native'),
      });
    }
  });

  it('forgets a registered client nobody authorized within unused_client_ttl, and keeps one that was used', async () => {
    const unused = await register();
    const used = (await codeFor()).clientId;
    clock.advance(2 * 3_600_000);
    const forgotten = await fetch(authorizeUrl(unused, pkce().challenge), { redirect: 'manual' });
    expect(forgotten.status).toBe(400);
    expect(await forgotten.text()).toContain('No client is registered');
    expect((await fetch(authorizeUrl(used, pkce().challenge), { redirect: 'manual' })).status).toBe(200);
  });

  it('registers only https or loopback http redirect URIs', async () => {
    for (const uri of ['http://app.example/callback', 'https://app.example/cb#frag', 'javascript:alert(1)']) {
      const response = await t.http.post('/register').send({ client_name: 'x', redirect_uris: [uri] });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_redirect_uri', error_description: expect.any(String) });
    }
    const missing = await t.http.post('/register').send({ client_name: 'x' });
    expect(missing.body.error).toBe('invalid_redirect_uri');
    const registered = await t.http
      .post('/register')
      .send({
        redirect_uris: ['https://app.example/callback', 'http://[::1]/cb'],
        token_endpoint_auth_method: 'client_secret_basic',
      })
      .expect(201);
    expect(registered.body).toMatchObject({
      token_endpoint_auth_method: 'none',
      client_id: expect.stringMatching(/^tgc_/),
    });
    expect(registered.body.client_secret).toBeUndefined();
  });

  it('issues tokens for this resource only, and /mcp refuses tokens it did not sign', async () => {
    const clientId = await register();
    const response = await fetch(authorizeUrl(clientId, pkce().challenge, { resource: 'https://other.example/mcp' }), {
      redirect: 'manual',
    });
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    const grant = await codeFor();
    const wrongTarget = await exchange(grant, { resource: 'https://other.example/mcp' });
    expect(wrongTarget.body.error).toBe('invalid_target');

    const idp = await OAuthProvider.start({ tenant_id: 'acme' });
    try {
      const foreign = await idp.mint({ audience: resource, scope: 'toolgate:mcp' });
      const refused = await initialize(foreign);
      expectError(refused, 401, { code: 'invalid_token' });
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token", resource_metadata=/);
    } finally {
      await idp.close();
    }
  });

  it('tells the holder of an access token sent to /v1 that it is for the MCP gateway', async () => {
    const tokens = (await exchange(await codeFor()).expect(200)).body;
    const refused = await t.http.get('/v1/tools').set(bearer(tokens.access_token));
    expectError(refused, 401, { code: 'wrong_token_type' });
    expect(refused.body.error.message).toContain(resource);
    expect((await initialize(tokens.access_token)).status).toBe(200);
  });

  it('refuses an expired access token, and a refresh gets a working one', async () => {
    clock.set(new Date(Date.now() - 3_600_000));
    const grant = await codeFor();
    const tokens = (await exchange(grant).expect(200)).body;
    clock.set(new Date());
    const expired = await initialize(tokens.access_token);
    expectError(expired, 401, { code: 'expired_token' });
    const renewed = (await refresh(grant.clientId, tokens.refresh_token).expect(200)).body;
    expect((await initialize(renewed.access_token)).status).toBe(200);
  });

  it('rotates refresh tokens: a spent one is refused and revokes its successors', async () => {
    const grant = await codeFor();
    const first = (await exchange(grant).expect(200)).body;
    const second = (await refresh(grant.clientId, first.refresh_token).expect(200)).body;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const replayed = await refresh(grant.clientId, first.refresh_token);
    expect(replayed.status).toBe(400);
    expect(replayed.body.error).toBe('invalid_grant');
    expect((await refresh(grant.clientId, second.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('revokes the access tokens already issued when a spent refresh token is presented again', async () => {
    const grant = await codeFor();
    const first = (await exchange(grant).expect(200)).body;
    const second = (await refresh(grant.clientId, first.refresh_token).expect(200)).body;
    for (const token of [first.access_token, second.access_token]) expect((await initialize(token)).status).toBe(200);
    expect((await refresh(grant.clientId, first.refresh_token)).body.error).toBe('invalid_grant');
    for (const token of [first.access_token, second.access_token]) {
      expectError(await initialize(token), 401, { code: 'revoked_token' });
    }
    const other = await exchange(await codeFor()).expect(200);
    expect((await initialize(other.body.access_token)).status).toBe(200);
  });

  it.each(['refresh token', 'code'])(
    'ends the whole grant when the same %s is presented several times at once: no successor survives',
    async (what) => {
      const grant = await codeFor();
      const spent = what === 'code' ? undefined : (await exchange(grant).expect(200)).body.refresh_token;
      const present = () => (spent ? refresh(grant.clientId, spent) : exchange(grant));
      const answers = await Promise.all(Array.from({ length: 10 }, present));
      const issued = answers.filter((answer) => answer.status === 200);
      expect(issued.length).toBeLessThanOrEqual(1);
      expect(answers.filter((answer) => answer.status === 400).map((answer) => answer.body.error)).toEqual(
        Array(answers.length - issued.length).fill('invalid_grant'),
      );
      // Whichever presentation came first, the others were replays: what it was given is revoked with the grant.
      for (const answer of issued) {
        expectError(await initialize(answer.body.access_token), 401, { code: 'revoked_token' });
        expect((await refresh(grant.clientId, answer.body.refresh_token)).body.error).toBe('invalid_grant');
      }
    },
  );

  it('revokes the tokens issued for a code when the code is presented again', async () => {
    const grant = await codeFor();
    const tokens = (await exchange(grant).expect(200)).body;
    expect((await initialize(tokens.access_token)).status).toBe(200);
    expect((await exchange(grant)).body.error).toBe('invalid_grant');
    expectError(await initialize(tokens.access_token), 401, { code: 'revoked_token' });
    expect((await refresh(grant.clientId, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('leaves a refresh token unspent when another client_id presents it', async () => {
    const grant = await codeFor();
    const tokens = (await exchange(grant).expect(200)).body;
    const wrongClient = await refresh(await register(), tokens.refresh_token);
    expect(wrongClient.status).toBe(400);
    expect(wrongClient.body.error).toBe('invalid_grant');
    const renewed = (await refresh(grant.clientId, tokens.refresh_token).expect(200)).body;
    expect((await initialize(renewed.access_token)).status).toBe(200);
    expect((await initialize(tokens.access_token)).status).toBe(200);
  });

  it('stops the tokens of a revoked API key at once, and refuses to refresh them', async () => {
    const created = await t.http
      .post('/v1/admin/api_keys')
      .set(bearer(t.adminKey))
      .send({ name: 'to revoke', tenant_id: 'acme' })
      .expect(201);
    const grant = await codeFor(created.body.secret);
    const tokens = (await exchange(grant).expect(200)).body;
    expect((await initialize(tokens.access_token)).status).toBe(200);
    await t.http.delete(`/v1/admin/api_keys/${created.body.id}`).set(bearer(t.adminKey)).expect(200);
    expectError(await initialize(tokens.access_token), 401, { code: 'revoked_api_key' });
    expect((await refresh(grant.clientId, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('keeps the consent form for a wrong key, honours a denial, and refuses a post without its CSRF cookie', async () => {
    const clientId = await register();
    const url = authorizeUrl(clientId, pkce().challenge);
    const page = await fetch(url);
    const cookie = page.headers.get('set-cookie')!.split(';')[0];
    const fields = hiddenFields(await page.text());
    const post = (body: Record<string, string>, headers: Record<string, string> = { Cookie: cookie }) =>
      fetch(`${base}/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(body),
      });
    const wrongKey = await post({ ...fields, api_key: 'tg_not-a-real-key-at-all-000000', decision: 'approve' });
    expect(wrongKey.status).toBe(401);
    expect(await wrongKey.text()).toContain('Invalid API key');
    const noCookie = await post({ ...fields, api_key: acmeKey, decision: 'approve' }, {});
    expect(noCookie.status).toBe(403);
    expect(noCookie.headers.get('location')).toBeNull();
    const denied = await post({ ...fields, decision: 'deny' });
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    expect(new URL(denied.headers.get('location')!).searchParams.get('iss')).toBe(base);
  });

  it('answers RFC 6749 errors on the token endpoint', async () => {
    const unsupported = await t.http.post('/token').type('form').send({ grant_type: 'password', client_id: 'x' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body).toEqual({ error: 'unsupported_grant_type', error_description: expect.any(String) });
    const noClient = await t.http.post('/token').type('form').send({ grant_type: 'authorization_code', code: 'x' });
    expect(noClient.status).toBe(401);
    expect(noClient.body.error).toBe('invalid_client');
  });

  describe('with a client ID metadata document', () => {
    let server: Server;
    let documentUrl: string;
    let document: Record<string, unknown>;

    beforeAll(async () => {
      server = createServer((request, response) => {
        response.setHeader('Content-Type', 'application/json');
        response.end(
          request.url === '/huge.json' ? JSON.stringify({ padding: 'x'.repeat(10_000) }) : JSON.stringify(document),
        );
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      documentUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/client.json`;
    });
    afterAll(() => new Promise((done) => server.close(done)));

    it('fetches the document and completes the flow with the URL as client_id', async () => {
      document = { client_id: documentUrl, client_name: 'Metadata Client', redirect_uris: [REDIRECT] };
      const { verifier, challenge } = pkce();
      const page = await fetch(authorizeUrl(documentUrl, challenge));
      expect(await page.text()).toContain('Metadata Client');
      const back = await consent(authorizeUrl(documentUrl, challenge), acmeKey);
      const tokens = await exchange({ clientId: documentUrl, verifier, code: back.searchParams.get('code')! });
      expect(tokens.status).toBe(200);
      expect((await initialize(tokens.body.access_token)).status).toBe(200);
    });

    it('refuses a document that names another client, lacks the redirect URI or is too large', async () => {
      for (const [url, body] of [
        [documentUrl, { client_id: 'https://elsewhere.example/client.json', redirect_uris: [REDIRECT] }],
        [documentUrl, { client_id: documentUrl, redirect_uris: ['https://elsewhere.example/cb'] }],
        [documentUrl.replace('client.json', 'huge.json'), {}],
      ] as const) {
        document = body;
        const response = await fetch(authorizeUrl(url, pkce().challenge), { redirect: 'manual' });
        expect(response.status).toBe(400);
        expect(response.headers.get('location')).toBeNull();
      }
    });
  });
});

/** A flow started on `a` for `resource` and approved on `b`: the client and its code, not yet exchanged. */
async function approvedCode(
  a: TestApp,
  b: TestApp,
  resource: string,
): Promise<{ clientId: string; code: string; verifier: string }> {
  const apiKey = await memberKey(a, 'acme');
  const clientId = (
    await a.http
      .post('/register')
      .send({ redirect_uris: [REDIRECT] })
      .expect(201)
  ).body.client_id;
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
  });
  const page = await a.http.get(`/authorize?${query}`).expect(200);
  const cookie = (page.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
  const approved = await b.http
    .post('/authorize')
    .set('Cookie', cookie)
    .type('form')
    .send({ ...hiddenFields(page.text), api_key: apiKey, decision: 'approve' })
    .expect(303);
  return { clientId, code: new URL(approved.headers.location).searchParams.get('code')!, verifier };
}

function exchangeOn(replica: TestApp, grant: { clientId: string; code: string; verifier: string }) {
  return replica.http.post('/token').type('form').send({
    grant_type: 'authorization_code',
    client_id: grant.clientId,
    code: grant.code,
    code_verifier: grant.verifier,
    redirect_uri: REDIRECT,
  });
}

/** A flow started on `a` and approved on `b`, its code exchanged on `a`. */
async function tokensAcross(
  a: TestApp,
  b: TestApp,
  resource: string,
): Promise<{ clientId: string; tokens: Record<string, string> }> {
  const grant = await approvedCode(a, b, resource);
  return { clientId: grant.clientId, tokens: (await exchangeOn(a, grant).expect(200)).body };
}

function refreshOn(replica: TestApp, clientId: string, refreshToken: string) {
  return replica.http
    .post('/token')
    .type('form')
    .send({ grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });
}

function initializeOn(replica: TestApp, token: string) {
  return replica.http.post('/mcp').set(MCP_HEADERS).set(bearer(token)).send(INITIALIZE);
}

describe('the built-in authorization server on two replicas', () => {
  const resource = 'https://toolgate.example.com/mcp';
  const clock = new ManualClock();
  let cluster: Replicas;

  beforeAll(async () => {
    cluster = await startReplicas({
      clock,
      providers: TEST_PROVIDERS,
      config: {
        builtins: { testkit: { enabled: true }, file_search: { enabled: false } },
        auth: { oauth: { resource, authorization_server: { enabled: true } } },
      },
    });
  }, 120_000);
  afterAll(() => cluster?.close());

  it('signs with one shared key, and any replica completes a flow another one started', async () => {
    const [a, b] = cluster.replicas;
    const keysA = (await a.http.get('/.well-known/jwks.json').expect(200)).body;
    expect((await b.http.get('/.well-known/jwks.json').expect(200)).body).toEqual(keysA);

    const { clientId, tokens } = await tokensAcross(a, b, resource);
    const renewed = (await refreshOn(b, clientId, tokens.refresh_token).expect(200)).body;
    for (const replica of [a, b]) expect((await initializeOn(replica, renewed.access_token)).status).toBe(200);
  });

  it('revokes a replayed grant on every replica, whichever saw the replay', async () => {
    const [a, b] = cluster.replicas;
    const { clientId, tokens } = await tokensAcross(a, b, resource);
    // Both replicas have seen the grant active (and remember it) before the replay.
    for (const replica of [a, b]) expect((await initializeOn(replica, tokens.access_token)).status).toBe(200);
    await refreshOn(b, clientId, tokens.refresh_token).expect(200);
    expect((await refreshOn(b, clientId, tokens.refresh_token)).body.error).toBe('invalid_grant');
    await waitFor(
      async () => (await initializeOn(a, tokens.access_token)).status === 401,
      10_000,
      'the other replica to refuse the revoked grant',
    );
    expectError(await initializeOn(a, tokens.access_token), 401, { code: 'revoked_token' });
  });

  it('fetches client metadata documents from public addresses only, by default', async () => {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'https://localhost:8443/client.json',
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const refused = await cluster.replicas[0].http.get(`/authorize?${query}`).expect(400);
    expect(refused.headers.location).toBeUndefined();
    expect(refused.text).toContain('it is not on a public address');
    const http = new URLSearchParams({ ...Object.fromEntries(query), client_id: 'http://app.example/client.json' });
    expect((await cluster.replicas[0].http.get(`/authorize?${http}`).expect(400)).text).toContain(
      'must be an https URL',
    );
  });

  it('counts registrations per address in the database: the limit holds across replicas', async () => {
    const [a, b] = cluster.replicas;
    // A fresh minute window (the default limit is 10 a minute), whatever the tests before registered.
    clock.advance(60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const replica = i % 2 === 0 ? a : b;
      statuses.push((await replica.http.post('/register').send({ redirect_uris: [REDIRECT] })).status);
    }
    expect(statuses).toEqual([...Array(10).fill(201), 429, 429]);
  });
});

describe('credentials bound to the authorization server that issued them (postgres)', () => {
  // Two deployments on one database (so one signing key), each its own issuer: https://a.example, https://b.example.
  const resourceA = 'https://a.example/mcp';
  const resourceB = 'https://b.example/mcp';
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const adminKey = `tg_test_admin_${randomBytes(18).toString('base64url')}`;
    const start = (resource: string) =>
      startApp('postgres', {
        database,
        adminKey,
        providers: TEST_PROVIDERS,
        config: {
          builtins: { testkit: { enabled: true }, file_search: { enabled: false } },
          auth: { oauth: { resource, authorization_server: { enabled: true } } },
        },
      });
    a = await start(resourceA);
    b = await start(resourceB);
  }, 120_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it("refuses another issuer's access token although it carries the same signature key", async () => {
    expect((await b.http.get('/.well-known/jwks.json').expect(200)).body).toEqual(
      (await a.http.get('/.well-known/jwks.json').expect(200)).body,
    );
    // Passport keeps one strategy per name in the process, so only the app started last (b) checks /mcp tokens
    // with its own settings here; in production each process is one deployment.
    const own = await tokensAcross(b, b, resourceB);
    expect((await initializeOn(b, own.tokens.access_token)).status).toBe(200);
    const { tokens } = await tokensAcross(a, a, resourceA);
    const refused = await initializeOn(b, tokens.access_token);
    expectError(refused, 401, { code: 'invalid_token' });
    expect(refused.body.error.message).toMatch(/audience|issuer/);
  });

  it("refuses to redeem another issuer's authorization code or refresh token", async () => {
    const code = await approvedCode(a, a, resourceA);
    const exchanged = await exchangeOn(b, code);
    expect(exchanged.status).toBe(400);
    expect(exchanged.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringContaining('another authorization server'),
    });

    const { clientId, tokens } = await tokensAcross(a, a, resourceA);
    const refreshed = await refreshOn(b, clientId, tokens.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect(refreshed.body.access_token).toBeUndefined();
  });
});

describe("the authorization server's signing key (postgres)", () => {
  const resource = 'https://toolgate.example.com/mcp';
  const [key1, key2] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(() => database?.drop());

  async function storedKeys(): Promise<{ kid: string; encryption_key_id: string; private_key_ciphertext: Buffer }[]> {
    const client = new PgClient({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query('SELECT kid, encryption_key_id, private_key_ciphertext FROM oauth_signing_keys')).rows;
    } finally {
      await client.end();
    }
  }

  async function publishedKid(secrets: Record<string, unknown>): Promise<string> {
    const app = await startApp('postgres', {
      database,
      config: { secrets, auth: { oauth: { resource, authorization_server: { enabled: true } } } },
    });
    try {
      return (await app.http.get('/.well-known/jwks.json').expect(200)).body.keys[0].kid;
    } finally {
      await app.close();
    }
  }

  it('is kept sealed across restarts and re-sealed with the new encryption key after a rotation', async () => {
    const kid = await publishedKid({ encryption_key: key1 });
    let rows = await storedKeys();
    expect(rows).toHaveLength(1);
    expect(rows[0].encryption_key_id).toBe(keyId(Buffer.from(key1, 'base64')));
    expect(rows[0].private_key_ciphertext.toString('latin1')).not.toContain('PRIVATE KEY');

    expect(await publishedKid({ encryption_key: key2, previous_keys: [key1] })).toBe(kid);
    rows = await storedKeys();
    expect(rows.map((row) => [row.kid, row.encryption_key_id])).toEqual([[kid, keyId(Buffer.from(key2, 'base64'))]]);
    expect(await publishedKid({ encryption_key: key2 })).toBe(kid);
  }, 120_000);
});

describe('the built-in authorization server, off by default', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite');
  }, 120_000);
  afterAll(() => t?.close());

  it('serves none of its routes', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/jwks.json', '/authorize']) {
      expect((await t.http.get(path)).status).toBe(404);
    }
    expect((await t.http.post('/register').send({})).status).toBe(404);
    expect((await t.http.post('/token').send({})).status).toBe(404);
  });
});

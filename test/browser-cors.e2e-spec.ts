import { createServer, Server } from 'node:http';
import { startApp, TestApp } from './support/app';
import { BrowserProbe, Chromium } from './support/browser';
import { freePort } from './support/server-process';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser', version: '1.0.0' } },
});
const MCP_HEADERS = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };

/** A page's own origin: any path answers an empty HTML page, as a web client's host would. */
async function pageServer(): Promise<{ server: Server; port: number }> {
  const port = await freePort();
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>MCP client</title>');
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return { server, port };
}

/**
 * A browser-based MCP client (the MCP Inspector's web UI, say) served from another origin than Toolgate's: a real
 * headless Chromium loads its page and fetches /mcp, the OAuth metadata and endpoints, and /v0.1 from it. One
 * origin is listed in gateway.allowed_origins (http://127.0.0.1:A), the other is not (http://localhost:B).
 */
describe('browsers on another origin', () => {
  let t: TestApp;
  let chromium: Chromium;
  const pages: Server[] = [];
  let allowedPage: string;
  let refusedPage: string;
  let probes: BrowserProbe[];

  beforeAll(async () => {
    const allowed = await pageServer();
    const refused = await pageServer();
    pages.push(allowed.server, refused.server);
    allowedPage = `http://127.0.0.1:${allowed.port}`;
    refusedPage = `http://localhost:${refused.port}`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    t = await startApp('postgres', {
      port,
      config: {
        builtins: { file_search: { enabled: false } },
        gateway: { allowed_origins: [allowedPage] },
        auth: { oauth: { resource: `${base}/mcp`, authorization_server: { enabled: true } } },
      },
    });
    const key = { Authorization: `Bearer ${t.adminKey}` };
    probes = [
      { name: 'mcp', url: `${base}/mcp`, method: 'POST', headers: { ...MCP_HEADERS, ...key }, body: INITIALIZE },
      {
        name: 'mcpWithoutKey',
        url: `${base}/mcp`,
        method: 'POST',
        headers: MCP_HEADERS,
        body: INITIALIZE,
        readHeaders: ['www-authenticate', 'x-request-id'],
      },
      { name: 'resourceMetadata', url: `${base}/.well-known/oauth-protected-resource/mcp` },
      { name: 'serverMetadata', url: `${base}/.well-known/oauth-authorization-server` },
      {
        name: 'register',
        url: `${base}/register`,
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_name: 'browser client', redirect_uris: [`${allowedPage}/callback`] }),
      },
      {
        name: 'token',
        url: `${base}/token`,
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=unknown&client_id=unknown&code_verifier=x',
      },
      { name: 'registry', url: `${base}/v0.1/servers`, headers: key },
    ];
    chromium = await Chromium.start();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    for (const page of pages) await new Promise((done) => page.close(done));
    await t?.close();
  });

  it('lets a page from a listed origin use /mcp, read the 401 challenge, the OAuth metadata, /register and /token', async () => {
    const results = await chromium.fetchFrom(allowedPage, probes);

    expect(results.mcp).toMatchObject({ status: 200 });
    expect(results.mcp.status === 200 && results.mcp.body).toContain('"protocolVersion":"2025-06-18"');
    expect(results.mcpWithoutKey).toMatchObject({ status: 401 });
    expect(results.mcpWithoutKey.status && results.mcpWithoutKey.headers).toEqual({
      'www-authenticate': expect.stringMatching(
        /^Bearer resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/,
      ),
      'x-request-id': expect.any(String),
    });
    expect(results.resourceMetadata).toMatchObject({ status: 200 });
    expect(results.serverMetadata).toMatchObject({ status: 200 });
    expect(results.register).toMatchObject({ status: 201 });
    expect(results.token).toMatchObject({ status: 400 });
    expect(results.registry).toMatchObject({ status: 200 });
  });

  it('keeps a page from an unlisted origin from reading anything but the registry, which any origin may use', async () => {
    const results = await chromium.fetchFrom(refusedPage, probes);

    for (const name of ['mcp', 'mcpWithoutKey', 'resourceMetadata', 'serverMetadata', 'register', 'token']) {
      expect({ name, result: results[name] }).toEqual({ name, result: { error: 'TypeError: Failed to fetch' } });
    }
    expect(results.registry).toMatchObject({ status: 200 });
  });

  it('answers a preflight without credentials, for listed origins only', async () => {
    const preflight = (origin: string) =>
      fetch(`${t.baseUrl}/mcp`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type,mcp-protocol-version',
        },
      });
    const allowed = await preflight(allowedPage);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(allowedPage);
    expect(allowed.headers.get('access-control-allow-headers')).toBe('authorization,content-type,mcp-protocol-version');
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();

    const refused = await preflight(refusedPage);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});

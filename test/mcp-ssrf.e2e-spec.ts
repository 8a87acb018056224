// The module object itself (not a namespace copy), so the service's own lookups see the test's resolver.
import dnsPromises from 'node:dns/promises';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearer, startApp, TestApp } from './support/app';
import { ENGINES } from './support/databases';

/** Any HTTP server on every local address (IPv4 and IPv6), counting the requests that reach it. */
async function countingServer(): Promise<{ port: number; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((_req, res) => {
    requests += 1;
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((done) => server.listen(0, '::', done));
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

describe.each(ENGINES)('MCP sources with private networks disallowed (%s)', (engine) => {
  let t: TestApp;
  let target: Awaited<ReturnType<typeof countingServer>>;
  const register = (name: string, url: string) =>
    t.http.post('/v1/tools/sources/mcp').set(bearer(t.adminKey)).send({ name, url });

  beforeAll(async () => {
    target = await countingServer();
    t = await startApp(engine, {
      config: { builtins: { file_search: { enabled: false } }, mcp: { allow_private_networks: false } },
    });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
    await target?.close();
  });

  it('refuses the unspecified address and IPv6 forms of loopback with ssrf_refused', async () => {
    for (const host of ['[::]', '[0:0:0:0:0:0:0:0]', '[::ffff:127.0.0.1]', '[::127.0.0.1]', '[64:ff9b::7f00:1]']) {
      const res = await register('inside', `http://${host}:${target.port}/mcp`).expect(400);
      expect(res.body.error).toEqual(expect.objectContaining({ code: 'ssrf_refused', param: 'url' }));
    }
    expect(target.requests()).toBe(0);
  });

  it('checks the address it really connects to, so a host that resolves elsewhere later (DNS rebinding) is refused', async () => {
    // The checks before connecting see a public address; the connection itself resolves localhost for real.
    const realLookup = dnsPromises.lookup;
    jest
      .spyOn(dnsPromises, 'lookup')
      .mockImplementation(((host: string, options: object) =>
        host === 'localhost'
          ? Promise.resolve([{ address: '93.184.216.34', family: 4 }])
          : realLookup(host, options as never)) as typeof dnsPromises.lookup);

    const res = await register('rebound', `http://localhost:${target.port}/mcp`).expect(201);
    expect(res.body.discovery).toEqual(expect.objectContaining({ status: 'error' }));
    expect(res.body.discovery.error).toMatch(/refused by the SSRF policy/);
    const again = await t.http.post('/v1/tools/sources/mcp/rebound/refresh').set(bearer(t.adminKey)).expect(200);
    expect(again.body.status).toBe('error');
    expect(target.requests()).toBe(0);
  });
});

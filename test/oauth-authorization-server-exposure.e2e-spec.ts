import { createServer as createTcpServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startApp, TestApp } from './support/app';
import { ENGINES } from './support/databases';
import { ManualClock } from './support/manual-clock';

const REDIRECT = 'http://127.0.0.1:1/callback';

/**
 * What anyone, without a credential, can make the built-in authorization server do with its default settings:
 * fetch a client metadata document (never from a local address, not even a connection attempt) and register
 * clients (rationed per address, bounded in size).
 */
describe.each(ENGINES)('the built-in authorization server, unauthenticated (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startApp(engine, {
      clock,
      config: {
        builtins: { file_search: { enabled: false } },
        auth: { oauth: { resource: 'https://toolgate.example.com/mcp', authorization_server: { enabled: true } } },
      },
    });
  }, 120_000);
  afterAll(() => t?.close());

  describe('with a listener on a loopback port', () => {
    let listener: Server;
    let port: number;
    const accepted: Socket[] = [];

    beforeAll(async () => {
      listener = createTcpServer((socket) => {
        accepted.push(socket);
        socket.destroy();
      });
      await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
      port = (listener.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((done) => listener.close(done)));

    it('refuses client_id URLs on local addresses before connecting to them, in every spelling', async () => {
      const hosts = [
        '127.0.0.1',
        '127.1',
        '0x7f000001',
        '2130706433',
        '0177.0.0.1',
        '0.0.0.0',
        '[::ffff:127.0.0.1]',
        '[::ffff:7f00:1]',
        '[::1]',
        'localhost',
      ];
      for (const host of hosts) {
        const query = new URLSearchParams({
          response_type: 'code',
          client_id: `https://${host}:${port}/client.json`,
          redirect_uri: REDIRECT,
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        });
        const refused = await t.http.get(`/authorize?${query}`);
        expect(refused.status).toBe(400);
        expect(refused.headers.location).toBeUndefined();
        expect(refused.text).toContain('it is not on a public address');
      }
      expect(accepted).toHaveLength(0);
    });
  });

  it('limits registrations per source address and answers 429 with Retry-After', async () => {
    clock.advance(60_000); // a fresh minute window
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push((await t.http.post('/register').send({ redirect_uris: [REDIRECT] })).status);
    }
    expect(statuses).toEqual(Array(10).fill(201));
    const refused = await t.http.post('/register').send({ redirect_uris: [REDIRECT] });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    clock.advance(60_000);
    expect((await t.http.post('/register').send({ redirect_uris: [REDIRECT] })).status).toBe(201);
  });

  it('refuses client metadata larger than 5 KB', async () => {
    clock.advance(60_000);
    const longUris = Array.from({ length: 10 }, (_, i) => `https://app.example/${i}/${'a'.repeat(1900)}`);
    const padded = { redirect_uris: [REDIRECT], software_statement: 'x'.repeat(6000) };
    for (const body of [{ redirect_uris: longUris }, padded]) {
      const refused = await t.http.post('/register').send(body);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        error: 'invalid_client_metadata',
        error_description: expect.stringContaining('5120 bytes'),
      });
    }
  });
});

import { rmSync } from 'node:fs';
import { connect, createServer, Server, Socket } from 'node:net';
import request from 'supertest';
import { randomToken } from '../src/common/ids';
import { bearer } from './support/app';
import { expectError } from './support/errors';
import { buildService, cleanEnv, freePort, MAIN, runNode, ServerProcess, tempDir } from './support/server-process';

/** `node dist/src/main.js` on an embedded database, restarted on the same data directory. */
describe('the server process on its first and later starts', () => {
  const dataDirs: string[] = [];
  const chosenKey = `tg_${randomToken(32)}`;
  const servers: ServerProcess[] = [];

  const start = async (dataDir: string, env: Record<string, string> = {}) => {
    const port = await freePort();
    const server = await ServerProcess.start(
      { PORT: String(port), HOST: '127.0.0.1', TOOLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env },
      dataDir,
    );
    servers.push(server);
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    return server;
  };

  const freshDataDir = () => {
    const dir = tempDir();
    dataDirs.push(dir);
    return dir;
  };

  beforeAll(buildService, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.kill()));
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'prints the URL and a one-time admin key on the first start, no new key on a restart with the same data, ' +
      'and takes ADMIN_API_KEY as the admin key from then on',
    async () => {
      const dataDir = freshDataDir();
      const generatedKey = await firstStart(dataDir);
      await restartKeepsKey(dataDir, generatedKey);
      await chosenKeyReplaces(dataDir, generatedKey);
    },
    300_000,
  );

  /** The first start prints a working one-time admin key, and exits 0 on SIGTERM. */
  async function firstStart(dataDir: string): Promise<string> {
    const server = await start(dataDir);
    const generatedKey = await server.adminKeyBanner();
    expect(generatedKey).toMatch(/^tg_[A-Za-z0-9]{40}$/);

    const keys = await request(server.url).get('/v1/admin/api_keys').set(bearer(generatedKey));
    expect(keys.status).toBe(200);
    expect(keys.body.data).toEqual([
      expect.objectContaining({
        role: 'admin',
        tenant_id: 'default',
        prefix: generatedKey.slice(0, 9),
        status: 'active',
      }),
    ]);

    expect(await server.stop()).toEqual({ code: 0, signal: null });
    expect(server.output.stdout).toContain('SIGTERM received: draining');
    // The banner is on stderr, on lines of its own; stdout (the JSON log stream) never carries the key.
    expect(server.printedAdminKeys).toEqual([generatedKey]);
    expect(server.output.stderr).toContain(`\n  ${generatedKey}\n`);
    expect(server.output.stdout).not.toContain(generatedKey);
    return generatedKey;
  }

  /** A restart prints no new key, and the stored key still works. */
  async function restartKeepsKey(dataDir: string, generatedKey: string) {
    const server = await start(dataDir);
    const keys = await request(server.url).get('/v1/admin/api_keys').set(bearer(generatedKey));
    expect(keys.status).toBe(200);
    expect(keys.body.data).toHaveLength(1);

    expect(await server.stop()).toEqual({ code: 0, signal: null });
    expect(server.printedAdminKeys).toEqual([]);
  }

  /** ADMIN_API_KEY becomes the admin key, and the generated one is refused from then on. */
  async function chosenKeyReplaces(dataDir: string, generatedKey: string) {
    const server = await start(dataDir, { ADMIN_API_KEY: chosenKey });
    expect((await request(server.url).get('/v1/admin/api_keys').set(bearer(chosenKey))).status).toBe(200);
    const refused = await request(server.url).get('/v1/admin/api_keys').set(bearer(generatedKey));
    expectError(refused, 401, { code: 'revoked_api_key' });

    expect(await server.stop()).toEqual({ code: 0, signal: null });
    expect(server.printedAdminKeys).toEqual([]);
  }

  it('lets a request in flight at SIGTERM finish and reports draining, then stops accepting and exits 0', async () => {
    const server = await start(freshDataDir(), { ADMIN_API_KEY: chosenKey });
    const { port } = new URL(server.url);
    const body = JSON.stringify({ name: 'in flight', tenant_id: 'acme' });
    const half = Math.floor(body.length / 2);
    const socket = connect(Number(port), '127.0.0.1');
    const received = collect(socket);

    // The server has the request (it answered 100-continue) and is reading its body when SIGTERM arrives.
    socket.write(
      `POST /v1/admin/api_keys HTTP/1.1\r\nHost: toolgate\r\nAuthorization: Bearer ${chosenKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    await received.waitFor(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    socket.write(body.slice(0, half));
    server.output.child.kill('SIGTERM');
    await server.output.waitFor(/SIGTERM received: draining/);
    // The rest of the body, and a readiness probe pipelined on the same connection.
    socket.write(`${body.slice(half)}GET /readyz HTTP/1.1\r\nHost: toolgate\r\nConnection: close\r\n\r\n`);

    const [, created, readiness] = parseResponses(await received.closed);
    expect(created.status).toBe(201);
    expect(JSON.parse(created.body)).toMatchObject({ object: 'api_key', name: 'in flight', tenant_id: 'acme' });
    expect(readiness.status).toBe(503);
    expect(JSON.parse(readiness.body)).toEqual({
      error: { message: expect.any(String), type: 'service_unavailable', param: null, code: 'draining' },
    });

    expect(await server.output.exited).toEqual({ code: 0, signal: null });
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  }, 180_000);
});

describe('a first start that fails after generating the admin key', () => {
  const dataDir = tempDir();
  const chosenKey = `tg_${randomToken(32)}`;
  const servers: ServerProcess[] = [];
  let occupier: Server | undefined;

  beforeAll(buildService, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.kill()));
    occupier?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const baseEnv = { HOST: '127.0.0.1', TOOLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };

  it('makes the next start say that no one holds an admin key and how to set one, until ADMIN_API_KEY is set', async () => {
    // The port is taken, so the start fails at listen: after the key was generated, before it was shown.
    const port = await freePort();
    occupier = createServer();
    await new Promise<void>((done) => occupier!.listen(port, '127.0.0.1', done));
    const failed = runNode(MAIN, [], cleanEnv({ ...baseEnv, PORT: String(port) }), dataDir);
    expect(await failed.exited).toEqual({ code: 1, signal: null });
    expect(failed.stderr).toContain('Start-up failed: listen EADDRINUSE');
    expect(failed.stderr).not.toMatch(/tg_/);

    const next = await ServerProcess.start({ ...baseEnv, PORT: String(await freePort()) }, dataDir);
    servers.push(next);
    await next.output.waitFor(/No admin API key is available[^\n]*Set ADMIN_API_KEY/, 'stderr');
    expect(await next.stop()).toEqual({ code: 0, signal: null });
    expect(next.printedAdminKeys).toEqual([]);

    const recovered = await ServerProcess.start(
      { ...baseEnv, PORT: String(await freePort()), ADMIN_API_KEY: chosenKey },
      dataDir,
    );
    servers.push(recovered);
    expect((await request(recovered.url).get('/v1/admin/api_keys').set(bearer(chosenKey))).status).toBe(200);
    expect(await recovered.stop()).toEqual({ code: 0, signal: null });
    expect(recovered.output.stderr).not.toContain('No admin API key is available');

    // Once recovered, a start without ADMIN_API_KEY has nothing to report either.
    const later = await ServerProcess.start({ ...baseEnv, PORT: String(await freePort()) }, dataDir);
    servers.push(later);
    expect(await later.stop()).toEqual({ code: 0, signal: null });
    expect(later.output.stderr).not.toContain('No admin API key is available');
  }, 300_000);
});

/** Everything a raw socket receives, with a way to wait for a prefix and for the close. */
function collect(socket: Socket) {
  let text = '';
  const waiters: (() => void)[] = [];
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
    waiters.splice(0).forEach((wake) => wake());
  });
  const closed = new Promise<string>((done, fail) => {
    socket.once('error', fail);
    socket.once('close', () => done(text));
  });
  return {
    closed,
    async waitFor(pattern: RegExp): Promise<void> {
      while (!pattern.test(text)) {
        if (socket.closed) throw new Error(`Connection closed; received: ${text}`);
        await Promise.race([new Promise<void>((wake) => waiters.push(wake)), closed]);
      }
    },
  };
}

/** Splits pipelined HTTP/1.1 responses (ASCII bodies with Content-Length). */
function parseResponses(text: string): { status: number; body: string }[] {
  const responses: { status: number; body: string }[] = [];
  let rest = text;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) throw new Error(`Incomplete response: ${rest}`);
    const head = rest.slice(0, headEnd);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
    responses.push({ status, body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return responses;
}

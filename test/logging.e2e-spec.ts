import { rmSync } from 'node:fs';
import request from 'supertest';
import { bearer } from './support/app';
import { buildService, freePort, ServerProcess, tempDir } from './support/server-process';

interface LogLine {
  level: number;
  msg: string;
  tenant?: string;
  req?: { id: string; method: string; url: string; headers: Record<string, unknown> };
  res?: { statusCode: number };
}

/** At LOG_LEVEL=info: the key banner once on stderr, and on stdout JSON log lines that never carry a credential. */
describe('logs of the server process', () => {
  const dataDir = tempDir();
  let server: ServerProcess;

  beforeAll(buildService, 120_000);

  afterAll(async () => {
    await server?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('show the admin key only in the first-start banner, never in a log line', async () => {
    const port = await freePort();
    server = await ServerProcess.start(
      { PORT: String(port), HOST: '127.0.0.1', TOOLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      dataDir,
    );
    const adminKey = await server.adminKeyBanner();
    const http = request(server.url);

    const listed = await http.get('/v1/admin/api_keys').set(bearer(adminKey)).set('x-request-id', 'logged-request-1');
    expect(listed.status).toBe(200);
    const created = await http.post('/v1/admin/api_keys').set(bearer(adminKey)).send({ name: 'ci', tenant_id: 'acme' });
    expect(created.status).toBe(201);
    const memberKey: string = created.body.secret;
    expect((await http.get('/v1/tenants/acme/settings').set(bearer(memberKey))).status).toBe(200);
    // An unknown query parameter is refused, and the query string (here holding the key) is not logged either.
    expect((await http.get(`/v1/admin/api_keys?api_key=${adminKey}`).set(bearer(adminKey))).status).toBe(400);
    expect((await http.get('/v1/no_such_route').set(bearer(adminKey))).status).toBe(404);
    const badJson = await http
      .post('/v1/admin/api_keys')
      .set(bearer(adminKey))
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expect(badJson.status).toBe(400);
    expect((await http.get('/v1/admin/api_keys').set(bearer(`${adminKey}x`))).status).toBe(401);

    expect(await server.stop()).toEqual({ code: 0, signal: null });
    const { stdout, stderr } = server.output;
    expect(stderr.split(adminKey)).toHaveLength(2);
    expect(stdout).not.toContain(adminKey);
    expect(stdout).not.toContain(memberKey);
    expect(stderr).not.toContain(memberKey);

    const logs: LogLine[] = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
    const requestLogs = logs.filter((log) => log.req && log.res);
    // The logs are really there: one per request, with the caller's request id and the tenant.
    expect(requestLogs).toContainEqual(
      expect.objectContaining({
        tenant: 'default',
        req: expect.objectContaining({ id: 'logged-request-1', method: 'GET', url: '/v1/admin/api_keys' }),
        res: expect.objectContaining({ statusCode: 200 }),
      }),
    );
    expect(requestLogs).toContainEqual(
      expect.objectContaining({ tenant: 'acme', req: expect.objectContaining({ url: '/v1/tenants/acme/settings' }) }),
    );
    expect(requestLogs.length).toBeGreaterThanOrEqual(6);
    for (const log of requestLogs) expect(Object.keys(log.req!.headers)).not.toContain('authorization');
  }, 180_000);
});

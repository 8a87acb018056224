import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { bearer } from './support/app';
import { createTestDatabase, TestDatabase } from './support/databases';
import { buildService, cleanEnv, freePort, MAIN, runNode, ServerProcess, tempDir } from './support/server-process';

/** The real server process: what an operator sees in its output about credentials, and what never shows. */
describe('credentials in the server process', () => {
  const dataDir = tempDir();
  let server: ServerProcess | undefined;
  let database: TestDatabase | undefined;

  beforeAll(buildService, 120_000);
  afterAll(async () => {
    await server?.kill();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('warns about the generated key, and logs no value even at LOG_LEVEL=trace', async () => {
    const port = await freePort();
    server = await ServerProcess.start(
      { PORT: String(port), HOST: '127.0.0.1', TOOLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'trace' },
      dataDir,
    );
    const adminKey = await server.adminKeyBanner();
    const http = request(server.url);
    const value = 'ghp_processLogCheckSecretValue';

    await http.put('/v1/tenants/acme/credentials/github_token').set(bearer(adminKey)).send({ value }).expect(200);
    await http
      .put('/v1/tenants/acme/credentials/github_token')
      .set(bearer(adminKey))
      .send({ value: `${value}-too-long-${'x'.repeat(16_384)}` })
      .expect(400);
    await http
      .put('/v1/tenants/acme/credentials/bad key')
      .set(bearer(adminKey))
      .send({ value: `${value}-bad-key` })
      .expect(400);
    await http
      .put('/v1/tenants/acme/credentials/github_token')
      .set(bearer(adminKey))
      .set('Content-Type', 'application/json')
      .send(`{"value": "${value}-broken-json`)
      .expect(400);
    await http.get('/v1/tenants/acme/credentials').set(bearer(adminKey)).expect(200);
    await http.delete('/v1/tenants/acme/credentials/github_token').set(bearer(adminKey)).expect(200);

    expect(await server.stop()).toEqual({ code: 0, signal: null });
    const output = server.output.stdout + server.output.stderr;
    expect(output).not.toContain(value);

    const path = join(dataDir, 'encryption.key');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const warnings = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level === 40 && line.msg.includes('encryption key'));
    expect(warnings).toEqual([
      expect.objectContaining({
        msg: expect.stringMatching(
          new RegExp(
            `^No encryption key configured: generated one for tenant credentials in .*encryption\\.key.*back it up`,
          ),
        ),
      }),
    ]);
  });

  it('stops at start on PostgreSQL without a key, with one line saying how to make one', async () => {
    database = await createTestDatabase('postgres');
    const output = runNode(MAIN, [], cleanEnv({ DATABASE_URL: database.url!, TOOLGATE_DATA_DIR: dataDir }), dataDir);
    const exit = await output.exited;
    expect(exit.code).toBe(1);
    expect(output.stdout).not.toContain('listening');
    expect(output.stderr.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(
        /^Invalid configuration: secrets\.encryption_key = missing: .*`openssl rand -base64 32`.*TOOLGATE_SECRETS__ENCRYPTION_KEY/,
      ),
    ]);
  });
});

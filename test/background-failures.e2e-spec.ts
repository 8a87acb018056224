import { rmSync } from 'node:fs';
import { Client } from 'pg';
import request from 'supertest';
import { bearer } from './support/app';
import { createTestDatabase, TestDatabase } from './support/databases';
import { buildService, freePort, ServerProcess, tempDir } from './support/server-process';
import { metricValue, waitFor } from './support/wait';

const ADMIN_KEY = 'tg_background_failures_admin_key_0123456789';
const FAILURES = 'toolgate_background_task_failures_total';

/**
 * Work nobody awaits (recording when a key was last used) meets a database that
 * drops every connection. The real server process must survive it, keep answering, and say what failed.
 */
describe('background work when the database drops its connections', () => {
  const dataDir = tempDir();
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  let locker: Client | undefined;

  beforeAll(async () => {
    await buildService();
    database = await createTestDatabase('postgres');
  }, 180_000);
  afterAll(async () => {
    await locker?.end().catch(() => undefined);
    await server?.kill();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const databaseName = () => new URL(database.url!).pathname.slice(1);

  /** Queries of the service waiting on our lock, by the start of their text. */
  const blocked = async (prefix: string) => {
    const { rows } = await locker!.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE $2`,
      [databaseName(), `${prefix}%`],
    );
    return rows[0].n > 0;
  };

  it('survives, answers /healthz, and counts and logs the failed task', async () => {
    const port = await freePort();
    server = await ServerProcess.start(
      {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url!,
        ADMIN_API_KEY: ADMIN_KEY,
        TOOLGATE_DATA_DIR: dataDir,
        TOOLGATE_SECRETS__ENCRYPTION_KEY: 'dG9vbGdhdGUtdGVzdC1rZXktMzItYnl0ZXMtbG9uZyE=',
        LOG_LEVEL: 'info',
      },
      dataDir,
    );
    const http = request(server.url);
    const created = await http
      .post('/v1/admin/api_keys')
      .set(bearer(ADMIN_KEY))
      .send({ name: 'acme agent', tenant_id: 'acme' })
      .expect(201);
    const member = created.body.secret as string;
    // Hold the table the background write needs, so it is in flight when the connections drop.
    locker = new Client({ connectionString: database.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE api_keys IN EXCLUSIVE MODE');
    await http.get('/v1/tools').set(bearer(member)).expect(200);
    await waitFor(() => blocked('UPDATE "api_keys"'), 20_000, 'the last-used update to wait');

    await locker.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [databaseName()],
    );
    await locker.query('ROLLBACK');

    const failures = async (task: string) => metricValue((await http.get('/metrics')).text, FAILURES, { task }) ?? 0;
    await waitFor(async () => (await failures('api_key_last_used')) >= 1, 20_000, 'the last-used failure');

    expect(server.output.child.exitCode).toBeNull();
    await http.get('/healthz').expect(200);
    await waitFor(async () => (await http.get('/readyz')).status === 200, 20_000, 'readiness after the drop');
    await http.get('/v1/tools').set(bearer(member)).expect(200);

    const logged = server.output.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; task?: string });
    const tasks = logged.filter((line) => line.level >= 50 && line.task).map((line) => line.task);
    expect(tasks).toEqual(expect.arrayContaining(['api_key_last_used']));
  }, 120_000);
});

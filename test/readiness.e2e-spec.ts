import { startApp, TestApp } from './support/app';
import { adminQuery, createTestDatabase, TestDatabase } from './support/databases';
import { expectError } from './support/errors';

/** The database goes away under a running app: readiness says so, liveness does not. */
describe('readiness while the database is unreachable (postgres)', () => {
  let database: TestDatabase;
  let app: TestApp;
  let name: string;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    name = new URL(database.url!).pathname.slice(1);
    app = await startApp('postgres', { database });
  });

  afterAll(async () => {
    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await app?.close();
    await database?.drop();
  });

  // One scenario in order: an outage needs the answering database before it and the recovery after it.
  it('is ready while the database answers, 503 database_unavailable while connections are cut and refused (/healthz stays 200), and ready again once they are accepted', async () => {
    const ready = await app.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok', migrations: 'ok' } });

    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await adminQuery(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
    );
    expectError(await app.http.get('/readyz'), 503, { code: 'database_unavailable' });
    expectError(await app.http.get('/readyz'), 503, { code: 'database_unavailable' });
    const live = await app.http.get('/healthz');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });

    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    expect((await app.http.get('/readyz')).status).toBe(200);
  });
});

import { Client } from 'pg';
import { bearer, startApp, TestApp } from './support/app';
import { createTestDatabase, TestDatabase } from './support/databases';
import { ALL_MIGRATIONS } from '../migrations';

/** Replicas starting at the same moment against one empty database (postgres). */
describe('two instances starting together on one new database', () => {
  let database: TestDatabase;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await database?.drop();
  });

  it('both become ready, every migration is applied exactly once, and there is one bootstrap admin key', async () => {
    const results = await Promise.allSettled([startApp('postgres', { database }), startApp('postgres', { database })]);
    for (const result of results) if (result.status === 'fulfilled') apps.push(result.value);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);

    for (const app of apps) {
      expect((await app.http.get('/readyz')).status).toBe(200);
    }

    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const migrations = await client.query<{ name: string }>('SELECT name FROM migrations');
      const applied = migrations.rows.map((row) => row.name).sort();
      expect(applied).toEqual(ALL_MIGRATIONS.map((migration) => migration.name).sort());
      // The MCP gateway is stateless: its session table is gone.
      const sessions = await client.query(`SELECT to_regclass('mcp_gateway_sessions') AS name`);
      expect(sessions.rows).toEqual([{ name: null }]);

      // Each instance was given its own ADMIN_API_KEY: the later one replaced the earlier, once.
      const keys = await client.query<{ revoked: boolean }>(
        'SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE bootstrap ORDER BY revoked_at NULLS LAST',
      );
      expect(keys.rows).toEqual([{ revoked: true }, { revoked: false }]);
    } finally {
      await client.end();
    }
    const statuses = await Promise.all(apps.map((app) => app.http.get('/v1/admin/api_keys').set(bearer(app.adminKey))));
    expect(statuses.map((response) => response.status).sort()).toEqual([200, 401]);
  });
});

import { bearer, startApp, TestApp } from './support/app';
import { createTestDatabase, TestDatabase } from './support/databases';
import { waitFor } from './support/wait';

describe('API key revocation across replicas', () => {
  let database: TestDatabase;
  let replicaA: TestApp;
  let replicaB: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const adminKey = 'tg_replicas_admin_key_0123456789';
    [replicaA, replicaB] = await Promise.all([
      startApp('postgres', { database, adminKey }),
      startApp('postgres', { database, adminKey }),
    ]);
  });

  afterAll(async () => {
    await replicaA?.close();
    await replicaB?.close();
    await database?.drop();
  });

  it('refuses a key on every replica as soon as one revokes it, although both had it cached', async () => {
    const created = await replicaA.http
      .post('/v1/admin/api_keys')
      .set(bearer(replicaA.adminKey))
      .send({ name: 'shared', tenant_id: 'acme' })
      .expect(201);
    const key: string = created.body.secret;
    for (const replica of [replicaA, replicaB]) {
      await replica.http.get('/v1/tenants/acme/settings').set(bearer(key)).expect(200);
    }
    await replicaA.http.delete(`/v1/admin/api_keys/${created.body.id}`).set(bearer(replicaA.adminKey)).expect(200);
    const refusedOnA = await replicaA.http.get('/v1/tenants/acme/settings').set(bearer(key)).expect(401);
    expect(refusedOnA.body.error.code).toBe('revoked_api_key');
    await waitFor(
      async () => (await replicaB.http.get('/v1/tenants/acme/settings').set(bearer(key))).status === 401,
      1000,
      'replica B to refuse the revoked key within a second',
    );
  });
});

import { bearer, Replicas, startReplicas, TestApp } from './support/app';
import { waitFor } from './support/wait';

describe('API key revocation across replicas', () => {
  let cluster: Replicas;
  let replicaA: TestApp;
  let replicaB: TestApp;

  beforeAll(async () => {
    cluster = await startReplicas();
    [replicaA, replicaB] = cluster.replicas;
  });
  afterAll(() => cluster?.close());

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

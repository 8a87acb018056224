import { bearer, startApp, TestApp } from './support/app';
import { ENGINES } from './support/databases';
import { expectError } from './support/errors';

describe.each(ENGINES)('tenant settings on %s', (engine) => {
  let app: TestApp;
  let acmeKey: string;

  beforeAll(async () => {
    app = await startApp(engine);
    const created = await app.http
      .post('/v1/admin/api_keys')
      .set(bearer(app.adminKey))
      .send({ name: 'acme member', tenant_id: 'acme' });
    acmeKey = created.body.secret;
  });
  afterAll(() => app?.close());

  const settings = (tenant: string) => `/v1/tenants/${tenant}/settings`;

  it('answers the defaults for a tenant that never changed them', async () => {
    const response = await app.http.get(settings('fresh')).set(bearer(app.adminKey));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'tenant.settings',
      tenant_id: 'fresh',
      audit_retention: { basic_records: '90d', full_records: '30d' },
      updated_at: null,
    });
  });

  it('merges an update into the stored settings, keeping what was not mentioned', async () => {
    const first = await app.http
      .put(settings('acme'))
      .set(bearer(acmeKey))
      .send({ audit_retention: { basic_records: '365d' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      tenant_id: 'acme',
      audit_retention: { basic_records: '365d', full_records: '30d' },
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    const second = await app.http
      .put(settings('acme'))
      .set(bearer(app.adminKey))
      .send({ audit_retention: { full_records: '7d' } });
    expect(second.body.audit_retention).toEqual({ basic_records: '365d', full_records: '7d' });

    const empty = await app.http.put(settings('acme')).set(bearer(acmeKey)).send({});
    expect(empty.body.audit_retention).toEqual({ basic_records: '365d', full_records: '7d' });

    const read = await app.http.get(settings('acme')).set(bearer(acmeKey));
    expect(read.body).toEqual(empty.body);
  });

  it('hides another tenant from a member (404) but not from an admin', async () => {
    await app.http
      .put(settings('globex'))
      .set(bearer(app.adminKey))
      .send({ audit_retention: { basic_records: '10d' } });

    expectError(await app.http.get(settings('globex')).set(bearer(acmeKey)), 404, {
      code: 'not_found',
      param: 'tenant_id',
    });
    const write = await app.http
      .put(settings('globex'))
      .set(bearer(acmeKey))
      .send({ audit_retention: { basic_records: '1d' } });
    expectError(write, 404, { code: 'not_found', param: 'tenant_id' });
    // A tenant that does not exist looks exactly the same to a member.
    const unknown = await app.http.get(settings('no-such-tenant')).set(bearer(acmeKey));
    expect(unknown.body).toEqual({ error: { ...write.body.error, message: expect.any(String) } });

    const asAdmin = await app.http.get(settings('globex')).set(bearer(app.adminKey));
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.audit_retention.basic_records).toBe('10d');
  });

  it.each([
    [{ audit_retention: { basic_records: '30' } }, 'audit_retention.basic_records'],
    [{ audit_retention: { basic_records: '0d' } }, 'audit_retention.basic_records'],
    [{ audit_retention: { full_records: 'forever' } }, 'audit_retention.full_records'],
    [{ audit_retention: { basic_records: '30d', colour: 'red' } }, 'audit_retention.colour'],
    [{ audit_retention: '30d' }, 'audit_retention'],
    [{ audit_retention: [] }, 'audit_retention'],
    [{ retention: {} }, 'retention'],
  ])('refuses %j, naming %s', async (body, param) => {
    const response = await app.http.put(settings('acme')).set(bearer(acmeKey)).send(body);
    expectError(response, 400, { code: 'invalid_value', param });
  });

  it('refuses a tenant id that could never exist', async () => {
    const response = await app.http
      .put(settings('bad%20tenant'))
      .set(bearer(app.adminKey))
      .send({ audit_retention: { basic_records: '10d' } });
    expectError(response, 400, { code: 'invalid_value', param: 'tenant_id' });
  });
});

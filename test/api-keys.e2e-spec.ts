import { createHash } from 'node:crypto';
import { bearer, startApp, TestApp } from './support/app';
import { ENGINES } from './support/databases';
import { expectError } from './support/errors';
import { ManualClock } from './support/manual-clock';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe.each(ENGINES)('API keys on %s', (engine) => {
  let app: TestApp;
  const clock = new ManualClock();

  beforeAll(async () => {
    app = await startApp(engine, { clock });
  });
  afterAll(() => app?.close());

  const admin = () => bearer(app.adminKey);
  const createKey = async (body: object) => {
    const response = await app.http.post('/v1/admin/api_keys').set(admin()).send(body);
    expect(response.status).toBe(201);
    return response.body as { id: string; secret: string; [field: string]: unknown };
  };

  it('returns the secret once, on creation, and only a prefix afterwards', async () => {
    const created = await createKey({ name: 'ci pipeline', tenant_id: 'acme' });
    expect(created).toEqual({
      id: expect.stringMatching(/^key_[A-Za-z0-9]{24}$/),
      object: 'api_key',
      name: 'ci pipeline',
      tenant_id: 'acme',
      role: 'member',
      prefix: created.secret.slice(0, 9),
      status: 'active',
      secret: expect.stringMatching(/^tg_[A-Za-z0-9]{40}$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
    });

    const one = await app.http.get(`/v1/admin/api_keys/${created.id}`).set(admin());
    const list = await app.http.get('/v1/admin/api_keys').set(admin());
    expect(one.status).toBe(200);
    expect(list.status).toBe(200);
    const { secret, ...withoutSecret } = created;
    expect(one.body).toEqual(withoutSecret);
    expect(list.body.data).toContainEqual(withoutSecret);
    const hash = createHash('sha256').update(secret).digest('hex');
    for (const text of [one.text, list.text]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(hash);
      expect(text).not.toMatch(/"(secret|secret_hash|secretHash)"/);
    }
  });

  it('lets a member key use member routes of its own tenant but not admin routes', async () => {
    const { secret } = await createKey({ name: 'member', tenant_id: 'acme', role: 'member' });
    const settings = await app.http.get('/v1/tenants/acme/settings').set(bearer(secret));
    expect(settings.status).toBe(200);
    expect(settings.body.tenant_id).toBe('acme');
    expectError(await app.http.get('/v1/admin/api_keys').set(bearer(secret)), 403, { code: 'admin_required' });
    const create = await app.http.post('/v1/admin/api_keys').set(bearer(secret)).send({ name: 'x', tenant_id: 'acme' });
    expectError(create, 403, { code: 'admin_required' });
  });

  it('lets an admin key created through the API use admin routes', async () => {
    const { secret } = await createKey({ name: 'second admin', tenant_id: 'ops', role: 'admin' });
    expect((await app.http.get('/v1/admin/api_keys').set(bearer(secret))).status).toBe(200);
  });

  it('refuses a revoked key at once; revoking again answers the same; unknown ids are 404', async () => {
    const { id, secret } = await createKey({ name: 'to revoke', tenant_id: 'acme' });
    expect((await app.http.get('/v1/tenants/acme/settings').set(bearer(secret))).status).toBe(200);

    const revoked = await app.http.delete(`/v1/admin/api_keys/${id}`).set(admin());
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id, object: 'api_key.deleted', deleted: true });
    expectError(await app.http.get('/v1/tenants/acme/settings').set(bearer(secret)), 401, { code: 'revoked_api_key' });

    const again = await app.http.delete(`/v1/admin/api_keys/${id}`).set(admin());
    expect({ status: again.status, body: again.body as unknown }).toEqual({ status: 200, body: revoked.body });
    const shown = await app.http.get(`/v1/admin/api_keys/${id}`).set(admin());
    expect(shown.body).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });

    expectError(await app.http.delete('/v1/admin/api_keys/key_unknown').set(admin()), 404, {
      code: 'not_found',
      param: 'id',
    });
  });

  it('records when a key was last used', async () => {
    const { id, secret } = await createKey({ name: 'used', tenant_id: 'acme' });
    expect((await app.http.get('/v1/tenants/acme/settings').set(bearer(secret))).status).toBe(200);
    // The bookkeeping write is not awaited by the request it describes; it lands shortly after.
    let lastUsed: unknown = null;
    for (let attempt = 0; attempt < 50 && lastUsed === null; attempt++) {
      lastUsed = (await app.http.get(`/v1/admin/api_keys/${id}`).set(admin())).body.last_used_at;
      if (lastUsed === null) await sleep(50);
    }
    expect(lastUsed).toEqual(expect.any(String));
  });

  describe('expiry', () => {
    it('refuses a key once expires_in has passed', async () => {
      const created = await createKey({ name: 'short lived', tenant_id: 'acme', expires_in: 1 });
      expect(Date.parse(created.expires_at as string)).toBeGreaterThanOrEqual(Date.parse(created.created_at as string));
      clock.advance(1200);
      expectError(await app.http.get('/v1/tenants/acme/settings').set(bearer(created.secret)), 401, {
        code: 'expired_api_key',
      });
      const shown = await app.http.get(`/v1/admin/api_keys/${created.id}`).set(admin());
      expect(shown.body.status).toBe('expired');
    });

    it('takes an absolute expires_at in the future', async () => {
      const expiresAt = new Date(Date.now() + 86_400_000);
      const created = await createKey({ name: 'dated', tenant_id: 'acme', expires_at: expiresAt.toISOString() });
      expect(created.expires_at).toBe(expiresAt.toISOString());
      expect((await app.http.get('/v1/tenants/acme/settings').set(bearer(created.secret))).status).toBe(200);
    });

    it('refuses an expiry in the past, a malformed one, or both forms at once', async () => {
      const post = (body: object) =>
        app.http
          .post('/v1/admin/api_keys')
          .set(admin())
          .send({ name: 'x', tenant_id: 'acme', ...body });
      expectError(await post({ expires_at: '2020-01-01T00:00:00Z' }), 400, {
        code: 'invalid_value',
        param: 'expires_at',
      });
      expectError(await post({ expires_at: 'tomorrow' }), 400, { code: 'invalid_value', param: 'expires_at' });
      expectError(await post({ expires_in: 0 }), 400, { code: 'invalid_value', param: 'expires_in' });
      // Far enough out, the expiry is no longer a date: refused as a bad value, not a server error.
      expectError(await post({ expires_in: 1e13 }), 400, { code: 'invalid_value', param: 'expires_in' });
      expectError(await post({ expires_in: 60, expires_at: '2999-01-01T00:00:00Z' }), 400, {
        code: 'invalid_value',
        param: 'expires_in',
      });
    });
  });

  describe('validation', () => {
    it.each([
      ['tenant_id with a space', { name: 'x', tenant_id: 'has space' }, 'tenant_id'],
      ['missing tenant_id', { name: 'x' }, 'tenant_id'],
      ['empty name', { name: '', tenant_id: 'acme' }, 'name'],
      ['unknown role', { name: 'x', tenant_id: 'acme', role: 'owner' }, 'role'],
      ['unknown field', { name: 'x', tenant_id: 'acme', scopes: ['all'] }, 'scopes'],
    ])('refuses %s, naming the field', async (_case, body, param) => {
      const response = await app.http.post('/v1/admin/api_keys').set(admin()).send(body);
      expectError(response, 400, { code: 'invalid_value', param });
    });
  });

  describe('pagination', () => {
    const tenant = `pager-${engine}`;
    const created: string[] = [];
    const page = async (query: string) => {
      const response = await app.http.get(`/v1/admin/api_keys?tenant_id=${tenant}&${query}`).set(admin());
      expect(response.status).toBe(200);
      const body = response.body as { object: string; data: { id: string }[]; has_more: boolean };
      expect(body.object).toBe('list');
      return { ...response.body, ids: body.data.map((key) => key.id) };
    };

    beforeAll(async () => {
      for (let i = 0; i < 5; i++) created.push((await createKey({ name: `page ${i}`, tenant_id: tenant })).id);
    });

    /** The whole list in one page: pages must be slices of it. Keys made in the same millisecond tie-break on id. */
    const everything = async (order: 'asc' | 'desc') => {
      const all = await page(`limit=100&order=${order}`);
      expect(all.has_more).toBe(false);
      expect([...all.ids].sort()).toEqual([...created].sort());
      const times = (all.data as { created_at: string }[]).map((key) => Date.parse(key.created_at));
      expect(times).toEqual([...times].sort((a, b) => (order === 'asc' ? a - b : b - a)));
      return all.ids;
    };

    it('walks newest first with limit and after, and says when there is more', async () => {
      const newestFirst = await everything('desc');
      const first = await page('limit=2');
      expect(first).toMatchObject({ ids: newestFirst.slice(0, 2), has_more: true, first_id: newestFirst[0] });
      expect(first.last_id).toBe(newestFirst[1]);
      const second = await page(`limit=2&after=${first.last_id}`);
      expect(second).toMatchObject({ ids: newestFirst.slice(2, 4), has_more: true });
      const third = await page(`limit=2&after=${second.last_id}`);
      expect(third).toMatchObject({ ids: newestFirst.slice(4), has_more: false });
    });

    it('walks back with before, and oldest first with order=asc', async () => {
      const newestFirst = await everything('desc');
      const back = await page(`limit=2&before=${newestFirst[3]}`);
      expect(back).toMatchObject({ ids: newestFirst.slice(1, 3), has_more: true });
      const oldestFirst = await everything('asc');
      expect(oldestFirst).toEqual([...newestFirst].reverse());
      const ascending = await page(`limit=3&order=asc&after=${oldestFirst[0]}`);
      expect(ascending).toMatchObject({ ids: oldestFirst.slice(1, 4), has_more: true });
    });

    it('filters by tenant', async () => {
      const own = await page('limit=100');
      expect(own.ids).toHaveLength(5);
      const none = await app.http.get('/v1/admin/api_keys?tenant_id=nobody').set(admin());
      expect(none.body).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=two', 'limit'],
      ['order=sideways', 'order'],
      ['after=key_unknown', 'after'],
    ])('refuses %s, naming the parameter', async (query, param) => {
      const response = await app.http.get(`/v1/admin/api_keys?${query}`).set(admin());
      expectError(response, 400, { code: 'invalid_value', param });
    });

    it('refuses after and before together', async () => {
      const response = await app.http.get(`/v1/admin/api_keys?after=${created[0]}&before=${created[1]}`).set(admin());
      expectError(response, 400, { code: 'invalid_value', param: 'before' });
    });
  });
});

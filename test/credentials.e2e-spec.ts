import { Client } from 'pg';
import type { Response } from 'supertest';
import { CredentialsService, CredentialUnavailableError } from '../src/tools/catalog/credentials/credentials.service';
import { bearer, startApp, TestApp } from './support/app';
import type { CredentialRow } from '../src/tools/catalog/credentials/credential.repository';
import { memberKey } from './support/catalog';
import { createTestDatabase, ENGINES, TestDatabase } from './support/databases';
import { expectError } from './support/errors';

/** Per-tenant credentials over HTTP: stored encrypted, managed by the tenant or an admin, never shown. */
describe.each(ENGINES)('tenant credentials on %s', (engine) => {
  let database: TestDatabase;
  let t: TestApp;
  /** Every response body the current test saw: none may contain a stored value. */
  let seen: string[] = [];
  let responsesChecked = 0;
  let tenantCount = 0;
  const secrets = {
    acmeGithub: 'ghp_acmeSecretValue_0123456789',
    globexGithub: 'ghp_globexSecretValue_9876543210',
    acmeSlack: 'xoxb-acme-slack-secret-value',
  };

  const url = (tenant: string, key?: string) => `/v1/tenants/${tenant}/credentials${key ? `/${key}` : ''}`;
  const track = (response: Response) => {
    seen.push(response.text);
    return response;
  };
  const put = async (tenant: string, key: string, value: unknown, as: string) =>
    track(await t.http.put(url(tenant, key)).set(bearer(as)).send({ value }));
  const get = async (path: string, as: string) => track(await t.http.get(path).set(bearer(as)));
  const del = async (tenant: string, key: string, as: string) =>
    track(await t.http.delete(url(tenant, key)).set(bearer(as)));

  /** The table read directly, not through the service: with `pg` on PostgreSQL, through the app's pool on PGlite. */
  async function storedRows(): Promise<CredentialRow[]> {
    const sql = 'SELECT * FROM tenant_credentials ORDER BY tenant_id, key';
    if (engine === 'pglite') return t.toolgate.database.dataSource.query(sql);
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<CredentialRow>(sql)).rows;
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    t = await startApp(engine, { database });
  });
  afterEach(() => {
    for (const text of seen) {
      for (const value of [
        ...Object.values(secrets),
        'overwrite-attempt',
        'short-lived-secret-value',
        'initech-value',
      ]) {
        expect(text).not.toContain(value);
      }
    }
    responsesChecked += seen.length;
    seen = [];
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });
  // The per-test check above must have looked at something, or it proves nothing.
  afterAll(() => expect(responsesChecked).toBeGreaterThan(30));

  /** Two tenants of the test's own, each with a member key: `acme-<n>` and `globex-<n>`. */
  async function freshTenants() {
    tenantCount += 1;
    const acme = `acme-${tenantCount}`;
    const globex = `globex-${tenantCount}`;
    return { acme, globex, acmeKey: await memberKey(t, acme), globexKey: await memberKey(t, globex) };
  }

  /** Fresh tenants holding what the first test stores: acme's github and slack tokens, globex's github token. */
  async function storedTenants() {
    const tenants = await freshTenants();
    await put(tenants.acme, 'github_token', secrets.acmeGithub, tenants.acmeKey);
    await put(tenants.acme, 'slack.token', secrets.acmeSlack, tenants.acmeKey);
    await put(tenants.globex, 'github_token', secrets.globexGithub, t.adminKey);
    return tenants;
  }

  it('stores a credential and answers its name and timestamps, never the value', async () => {
    const { acme, globex, acmeKey } = await freshTenants();
    const created = await put(acme, 'github_token', secrets.acmeGithub, acmeKey);
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      object: 'tenant.credential',
      tenant_id: acme,
      key: 'github_token',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Math.abs(Date.parse(created.body.created_at) - Date.now())).toBeLessThan(60_000);

    const replaced = await put(acme, 'github_token', `${secrets.acmeGithub}-v2`, acmeKey);
    expect(replaced.body.created_at).toBe(created.body.created_at);
    expect(Date.parse(replaced.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));
    await put(acme, 'github_token', secrets.acmeGithub, acmeKey);

    expect((await put(acme, 'slack.token', secrets.acmeSlack, acmeKey)).status).toBe(200);
    // An admin manages any tenant's credentials.
    expect((await put(globex, 'github_token', secrets.globexGithub, t.adminKey)).status).toBe(200);

    const listed = await get(url(acme), acmeKey);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      object: 'list',
      data: [
        {
          object: 'tenant.credential',
          tenant_id: acme,
          key: 'github_token',
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
        {
          object: 'tenant.credential',
          tenant_id: acme,
          key: 'slack.token',
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ],
      first_id: 'github_token',
      last_id: 'slack.token',
      has_more: false,
    });
  });

  it('keeps no plaintext in the database row: ciphertext, 12-byte IV, 16-byte tag and a key id', async () => {
    const { acme, globex } = await storedTenants();
    const rows = (await storedRows()).filter((row) => [acme, globex].includes(row.tenant_id));
    expect(rows.map((row) => [row.tenant_id, row.key])).toEqual([
      [acme, 'github_token'],
      [acme, 'slack.token'],
      [globex, 'github_token'],
    ]);
    for (const row of rows) {
      expect(row.iv).toHaveLength(12);
      expect(row.auth_tag).toHaveLength(16);
      expect(row.key_id).toMatch(/^[0-9a-f]{16}$/);
      const everything = Buffer.concat(
        Object.values(row).map((field) => (Buffer.isBuffer(field) ? field : Buffer.from(String(field)))),
      );
      for (const value of Object.values(secrets)) {
        expect(everything.includes(Buffer.from(value))).toBe(false);
        expect(everything.toString('latin1')).not.toContain(value.slice(0, 12));
        expect(everything.toString('base64')).not.toContain(Buffer.from(value).toString('base64').slice(0, 16));
      }
    }
    // Same value, fresh IV: identical values for two tenants do not give identical ciphertexts.
    expect(rows[0].ciphertext.equals(rows[2].ciphertext)).toBe(false);
  });

  it('resolves each tenant its own value for the dispatcher, and undefined when missing', async () => {
    const { acme, globex } = await storedTenants();
    const credentials = t.toolgate.app.get(CredentialsService);
    expect(await credentials.resolve(acme, 'github_token')).toBe(secrets.acmeGithub);
    expect(await credentials.resolve(globex, 'github_token')).toBe(secrets.globexGithub);
    expect(await credentials.resolve(acme, 'slack.token')).toBe(secrets.acmeSlack);
    expect(await credentials.resolve(globex, 'slack.token')).toBeUndefined();
    expect(await credentials.resolve('initech', 'github_token')).toBeUndefined();
  });

  it("hides another tenant's credentials from a member (404), for reading, writing and deleting", async () => {
    const { acme, globex, globexKey } = await storedTenants();
    expectError(await get(url(acme), globexKey), 404, { code: 'not_found', param: 'tenant_id' });
    expectError(await put(acme, 'github_token', 'overwrite-attempt', globexKey), 404, {
      code: 'not_found',
      param: 'tenant_id',
    });
    expectError(await del(acme, 'github_token', globexKey), 404, { code: 'not_found', param: 'tenant_id' });
    // Indistinguishable from a tenant that does not exist.
    const unknown = await get(url('no-such-tenant'), globexKey);
    expect(unknown.status).toBe(404);
    expect(await t.toolgate.app.get(CredentialsService).resolve(acme, 'github_token')).toBe(secrets.acmeGithub);

    const own = await get(url(globex), globexKey);
    expect(own.body.data.map((item: { key: string }) => item.key)).toEqual(['github_token']);
    const asAdmin = await get(url(acme), t.adminKey);
    expect(asAdmin.body.data).toHaveLength(2);
  });

  it('a ciphertext moved to another tenant no longer decrypts (tenant and key are authenticated)', async () => {
    const { globex } = await storedTenants();
    await put('initech', 'moved', 'initech-value-to-move', t.adminKey);
    const query = (sql: string, parameters: unknown[]) => t.toolgate.database.dataSource.query(sql, parameters);
    await query(
      `UPDATE tenant_credentials AS target SET ciphertext = source.ciphertext, iv = source.iv, auth_tag = source.auth_tag
       FROM tenant_credentials AS source
       WHERE source.tenant_id = 'initech' AND source.key = 'moved' AND target.tenant_id = $1 AND target.key = 'github_token'`,
      [globex],
    );
    const credentials = t.toolgate.app.get(CredentialsService);
    const error = await credentials.resolve(globex, 'github_token').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect((error as Error).message).toMatch(
      new RegExp(`^The credential 'github_token' of tenant '${globex}' cannot be read: `),
    );
    expect((error as Error).message).not.toContain('initech-value');
    // Put back the real value: the rotation test counts every row as current.
    await put(globex, 'github_token', secrets.globexGithub, t.adminKey);
    await del('initech', 'moved', t.adminKey);
  });

  it('pages through key names with limit, after, before and order', async () => {
    for (const name of ['k-a', 'k-b', 'k-c', 'k-d', 'k-e']) await put('paged', name, `value of ${name}`, t.adminKey);
    const keys = (response: Response) => (response.body.data as { key: string }[]).map((item) => item.key);

    const first = await get(`${url('paged')}?limit=2`, t.adminKey);
    expect(keys(first)).toEqual(['k-a', 'k-b']);
    expect(first.body).toMatchObject({ first_id: 'k-a', last_id: 'k-b', has_more: true });
    const second = await get(`${url('paged')}?limit=2&after=k-b`, t.adminKey);
    expect(keys(second)).toEqual(['k-c', 'k-d']);
    const last = await get(`${url('paged')}?limit=2&after=k-d`, t.adminKey);
    expect(keys(last)).toEqual(['k-e']);
    expect(last.body.has_more).toBe(false);
    const back = await get(`${url('paged')}?limit=2&before=k-e`, t.adminKey);
    expect(keys(back)).toEqual(['k-c', 'k-d']);
    expect(back.body.has_more).toBe(true);
    const desc = await get(`${url('paged')}?limit=3&order=desc`, t.adminKey);
    expect(keys(desc)).toEqual(['k-e', 'k-d', 'k-c']);
    const descAfter = await get(`${url('paged')}?order=desc&after=k-c`, t.adminKey);
    expect(keys(descAfter)).toEqual(['k-b', 'k-a']);

    expectError(await get(`${url('paged')}?after=k-a&before=k-e`, t.adminKey), 400, {
      code: 'invalid_value',
      param: 'before',
    });
    expectError(await get(`${url('paged')}?limit=101`, t.adminKey), 400, { code: 'invalid_value', param: 'limit' });
  });

  it('deletes a credential (200), and answers 404 for one that does not exist', async () => {
    const { acme, acmeKey } = await storedTenants();
    await put(acme, 'short-lived', 'short-lived-secret-value', acmeKey);
    const deleted = await del(acme, 'short-lived', acmeKey);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      object: 'tenant.credential.deleted',
      tenant_id: acme,
      key: 'short-lived',
      deleted: true,
    });
    expectError(await del(acme, 'short-lived', acmeKey), 404, { code: 'not_found', param: 'key' });
    expect(await t.toolgate.app.get(CredentialsService).resolve(acme, 'short-lived')).toBeUndefined();
    expect(keysOf(await get(url(acme), acmeKey))).toEqual(['github_token', 'slack.token']);
  });

  it('refuses invalid input without echoing the value', async () => {
    const { acme, acmeKey } = await storedTenants();
    const tooLong = `ghp_${'x'.repeat(16_381)}`;
    const tooManyBytes = `ghp_${'é'.repeat(8_200)}`;
    const cases: [string, unknown, string][] = [
      ['github_token', '', 'value'],
      ['github_token', tooLong, 'value'],
      ['github_token', tooManyBytes, 'value'],
      ['github_token', 123456789, 'value'],
      ['github_token', { nested: 'ghp_nestedSecretValue' }, 'value'],
      ['bad key!', 'ghp_badKeySecretValue', 'key'],
      ['k'.repeat(129), 'ghp_longKeySecretValue', 'key'],
    ];
    for (const [key, value, param] of cases) {
      const response = await t.http
        .put(url(acme, encodeURIComponent(key)))
        .set(bearer(acmeKey))
        .send({ value });
      track(response);
      expectError(response, 400, { code: 'invalid_value', param });
      const shown = typeof value === 'string' ? value : JSON.stringify(value);
      if (shown.length > 0) expect(response.text).not.toContain(shown.slice(0, 12));
      if (typeof value === 'object') expect(response.text).not.toContain('ghp_nested');
    }
    const extra = track(
      await t.http
        .put(url(acme, 'github_token'))
        .set(bearer(acmeKey))
        .send({ value: 'ghp_withExtraField', other: 'ghp_extraSecret' }),
    );
    expectError(extra, 400, { code: 'invalid_value', param: 'other' });
    expect(extra.text).not.toContain('ghp_');
    const missing = track(await t.http.put(url(acme, 'github_token')).set(bearer(acmeKey)).send({}));
    expectError(missing, 400, { code: 'invalid_value', param: 'value' });
    // Nothing was changed by the refused requests.
    expect(await t.toolgate.app.get(CredentialsService).resolve(acme, 'github_token')).toBe(secrets.acmeGithub);
    // Exactly at the limit is fine.
    expect((await put(acme, 'at-limit', 'y'.repeat(16_384), acmeKey)).status).toBe(200);
  });

  it('lets only admins run the rotation route, which reports counts', async () => {
    const { acmeKey } = await storedTenants();
    const refused = track(await t.http.post('/v1/admin/credentials/rotate').set(bearer(acmeKey)));
    expectError(refused, 403, { code: 'admin_required' });
    const rotated = track(await t.http.post('/v1/admin/credentials/rotate').set(bearer(t.adminKey)));
    expect(rotated.status).toBe(200);
    const total = (await storedRows()).length;
    expect(rotated.body).toEqual({
      object: 'credential.rotation',
      key_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      rotated: 0,
      current: total,
      missing_key: 0,
      failed: 0,
    });
  });

  const keysOf = (response: Response) => (response.body.data as { key: string }[]).map((item) => item.key);
});

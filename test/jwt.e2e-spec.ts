import { exportSPKI, SignJWT } from 'jose';
import { createPublicKey } from 'node:crypto';
import { bearer, startApp, TestApp } from './support/app';
import { expectError } from './support/errors';
import { JwksServer, rsaSigningKey, signHs256, signRs256, SigningKey, unsignedToken } from './support/jwks';

const settings = (tenant: string) => `/v1/tenants/${tenant}/settings`;

describe('JWT with a shared secret (HS256)', () => {
  const secret = 'a-shared-secret-of-at-least-32-bytes!';
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp('postgres', { config: { auth: { jwt: { secret } } } });
  });
  afterAll(() => app?.close());

  it('takes the tenant from the tenant_id claim', async () => {
    const token = await signHs256(secret, { sub: 'user-1', tenant_id: 'acme' });
    const own = await app.http.get(settings('acme')).set(bearer(token));
    expect(own.status).toBe(200);
    expect(own.body.tenant_id).toBe('acme');
    expectError(await app.http.get(settings('globex')).set(bearer(token)), 404, {
      code: 'not_found',
      param: 'tenant_id',
    });
  });

  it('makes an admin only of a token whose roles include admin', async () => {
    const member = await signHs256(secret, { tenant_id: 'acme', roles: ['viewer'] });
    expectError(await app.http.get('/v1/admin/api_keys').set(bearer(member)), 403, { code: 'admin_required' });
    const admin = await signHs256(secret, { tenant_id: 'acme', roles: ['viewer', 'admin'] });
    expect((await app.http.get('/v1/admin/api_keys').set(bearer(admin))).status).toBe(200);
    const spaced = await signHs256(secret, { tenant_id: 'acme', roles: 'viewer admin' });
    expect((await app.http.get('/v1/admin/api_keys').set(bearer(spaced))).status).toBe(200);
  });

  it('keeps accepting API keys next to JWTs', async () => {
    expect((await app.http.get('/v1/admin/api_keys').set(bearer(app.adminKey))).status).toBe(200);
  });

  it('refuses expired, forged, unsigned and tenant-less tokens', async () => {
    const expired = await signHs256(secret, { tenant_id: 'acme' }, { expiresIn: -120 });
    expectError(await app.http.get(settings('acme')).set(bearer(expired)), 401, { code: 'expired_token' });
    const forged = await signHs256('another-secret-of-at-least-32-bytes!!', { tenant_id: 'acme' });
    expectError(await app.http.get(settings('acme')).set(bearer(forged)), 401, { code: 'invalid_token' });
    const unsigned = unsignedToken({ tenant_id: 'acme', roles: ['admin'] });
    expectError(await app.http.get(settings('acme')).set(bearer(unsigned)), 401, { code: 'invalid_token' });
    expectError(await app.http.get(settings('acme')).set(bearer('not.a.jwt')), 401, { code: 'invalid_token' });

    const tenantless = await signHs256(secret, { sub: 'user-1', roles: ['admin'] });
    const refused = await app.http.get('/v1/admin/api_keys').set(bearer(tenantless));
    expectError(refused, 401, { code: 'invalid_token' });
    expect(refused.body.error.message).toContain('tenant_id');
    const numeric = await signHs256(secret, { tenant_id: 42 });
    expectError(await app.http.get(settings('42')).set(bearer(numeric)), 401, { code: 'invalid_token' });
  });

  it('refuses a token without exp', async () => {
    const forever = await signHs256(secret, { tenant_id: 'acme' }, { expiresIn: null });
    const refused = await app.http.get(settings('acme')).set(bearer(forever));
    expectError(refused, 401, { code: 'invalid_token' });
    expect(refused.body.error.message).toContain("no 'exp' claim");
  });

  it('refuses a token issued further in the future than the clock tolerance, and accepts one within it', async () => {
    const ahead = await signHs256(secret, { tenant_id: 'acme' }, { issuedIn: 600, expiresIn: 900 });
    const refused = await app.http.get(settings('acme')).set(bearer(ahead));
    expectError(refused, 401, { code: 'invalid_token' });
    expect(refused.body.error.message).toContain("'iat' claim lies in the future");
    const skewed = await signHs256(secret, { tenant_id: 'acme' }, { issuedIn: 10 });
    expect((await app.http.get(settings('acme')).set(bearer(skewed))).status).toBe(200);
  });

  it('refuses a token that would live longer than auth.jwt.max_token_lifetime (24 h by default)', async () => {
    const lifetimes: [string, Record<string, number>, { issuedIn?: number; expiresIn?: number | null }][] = [
      ['exp 1e300', { exp: 1e300 }, { expiresIn: null }],
      ['25 h from now', {}, { expiresIn: 25 * 3600 }],
      ['issued 2 days ago, expiring in a minute', {}, { issuedIn: -2 * 86_400, expiresIn: 60 }],
    ];
    for (const [what, claims, options] of lifetimes) {
      const token = await signHs256(secret, { tenant_id: 'acme', ...claims }, options);
      const refused = await app.http.get(settings('acme')).set(bearer(token));
      expectError(refused, 401, { code: 'invalid_token' });
      expect(`${what}: ${refused.body.error.message}`).toContain('auth.jwt.max_token_lifetime');
    }
    const day = await signHs256(secret, { tenant_id: 'acme' }, { issuedIn: 0, expiresIn: 86_400 });
    expect((await app.http.get(settings('acme')).set(bearer(day))).status).toBe(200);
  });

  it('refuses a tenant_id claim that is not a valid tenant id', async () => {
    const token = await signHs256(secret, { tenant_id: 'acme corp', roles: ['admin'] });
    const refused = await app.http.get('/v1/admin/api_keys').set(bearer(token));
    expectError(refused, 401, { code: 'invalid_token' });
    expect(refused.body.error.message).toContain('tenant_id');
  });
});

describe('JWT with auth.jwt.require_exp turned off', () => {
  const secret = 'a-shared-secret-of-at-least-32-bytes!';
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp('postgres', { config: { auth: { jwt: { secret, require_exp: false } } } });
  });
  afterAll(() => app?.close());

  it('accepts a token without exp, and still refuses an expired one', async () => {
    const forever = await signHs256(secret, { tenant_id: 'acme' }, { expiresIn: null });
    expect((await app.http.get(settings('acme')).set(bearer(forever))).status).toBe(200);
    const expired = await signHs256(secret, { tenant_id: 'acme' }, { expiresIn: -120 });
    expectError(await app.http.get(settings('acme')).set(bearer(expired)), 401, { code: 'expired_token' });
  });
});

describe('JWT verified against a JWKS URL (RS256) with issuer and audience', () => {
  const issuer = 'https://idp.test/';
  const audience = 'toolgate';
  let key: SigningKey;
  let jwks: JwksServer;
  let app: TestApp;
  const valid = { issuer, audience };

  beforeAll(async () => {
    key = await rsaSigningKey('key-1');
    jwks = await JwksServer.start([key.jwk]);
    app = await startApp('postgres', { config: { auth: { jwt: { jwks_url: jwks.url, issuer, audience } } } });
  });
  afterAll(async () => {
    await app?.close();
    await jwks?.close();
  });

  it('accepts a token signed by a published key, with the tenant and role from its claims', async () => {
    const member = await signRs256(key, { tenant_id: 'acme', roles: ['viewer'] }, valid);
    const own = await app.http.get(settings('acme')).set(bearer(member));
    expect(own.status).toBe(200);
    expect(own.body.tenant_id).toBe('acme');
    expectError(await app.http.get('/v1/admin/api_keys').set(bearer(member)), 403, { code: 'admin_required' });

    const admin = await signRs256(key, { tenant_id: 'ops', roles: ['admin'] }, valid);
    expect((await app.http.get('/v1/admin/api_keys').set(bearer(admin))).status).toBe(200);
    expect((await app.http.get(settings('acme')).set(bearer(admin))).status).toBe(200);
  });

  it.each([
    ['a wrong issuer', { tenant_id: 'acme' }, { issuer: 'https://evil.test/', audience }, 'invalid_token'],
    ['a wrong audience', { tenant_id: 'acme' }, { issuer, audience: 'someone-else' }, 'invalid_token'],
    ['no issuer or audience', { tenant_id: 'acme' }, {}, 'invalid_token'],
    ['an expired token', { tenant_id: 'acme' }, { ...valid, expiresIn: -120 }, 'expired_token'],
    ['no tenant_id claim', { roles: ['admin'] }, valid, 'invalid_token'],
  ])('refuses %s with 401', async (_case, claims, options, code) => {
    const token = await signRs256(key, claims, options);
    expectError(await app.http.get(settings('acme')).set(bearer(token)), 401, { code });
  });

  it('refuses a token signed by a key that is not published, under a known or an unknown key id', async () => {
    const impostor = await rsaSigningKey('key-1');
    const sameKid = await signRs256(impostor, { tenant_id: 'acme' }, valid);
    expectError(await app.http.get(settings('acme')).set(bearer(sameKid)), 401, { code: 'invalid_token' });
    const otherKid = await signRs256({ ...impostor, kid: 'key-2' }, { tenant_id: 'acme' }, valid);
    expectError(await app.http.get(settings('acme')).set(bearer(otherKid)), 401, { code: 'invalid_token' });
  });

  it('refuses an HS256 token keyed with the published public key (algorithm confusion)', async () => {
    const pem = await exportSPKI(createPublicKey({ key: key.jwk as never, format: 'jwk' }));
    const token = await new SignJWT({ tenant_id: 'acme', roles: ['admin'], iss: issuer, aud: audience })
      .setProtectedHeader({ alg: 'HS256', kid: key.kid })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(pem));
    expectError(await app.http.get('/v1/admin/api_keys').set(bearer(token)), 401, { code: 'invalid_token' });
  });
});

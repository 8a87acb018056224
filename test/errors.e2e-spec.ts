import { Controller, Get, Module } from '@nestjs/common';
import { Public } from '../src/auth/auth.decorators';
import { bearer, startApp, TestApp } from './support/app';
import { expectError } from './support/errors';

/** A route that fails the way a bug would: an unexpected error carrying internals. */
@Public()
@Controller('test')
class FailingController {
  @Get('bug')
  bug(): never {
    throw new Error('connection to 10.0.0.7 refused at /srv/toolgate/dist/secret-module.js:42');
  }
}

@Module({ controllers: [FailingController] })
class FailingModule {}

/** Every failure class answers with the OpenAI envelope, the right status and a request id. */
describe('error envelope', () => {
  let app: TestApp;
  let memberKey: string;

  beforeAll(async () => {
    app = await startApp('postgres', { config: { server: { body_limit: '1kb' } }, imports: [FailingModule] });
    const created = await app.http
      .post('/v1/admin/api_keys')
      .set(bearer(app.adminKey))
      .send({ name: 'member', tenant_id: 'acme' });
    memberKey = created.body.secret;
  });
  afterAll(() => app?.close());

  const createKey = () => app.http.post('/v1/admin/api_keys').set(bearer(app.adminKey));

  it('400 invalid_json for a malformed JSON body', async () => {
    const response = await createKey().set('Content-Type', 'application/json').send('{"name": "x",');
    expectError(response, 400, { code: 'invalid_json' });
  });

  it('400 invalid_value naming the field for a validation failure', async () => {
    expectError(await createKey().send({ name: 'x', tenant_id: 'has space' }), 400, {
      code: 'invalid_value',
      param: 'tenant_id',
    });
    expectError(await createKey().send({ tenant_id: 'acme' }), 400, { code: 'invalid_value', param: 'name' });
    expectError(await createKey().send({ name: 'x', tenant_id: 'acme', colour: 'red' }), 400, {
      code: 'invalid_value',
      param: 'colour',
    });
  });

  it('400 saying what is wrong with a value of the wrong type, not which bound it misses', async () => {
    const wrongType = await createKey().send({ name: 'x', tenant_id: 'acme', expires_in: '60' });
    expectError(wrongType, 400, { code: 'invalid_value', param: 'expires_in' });
    expect(wrongType.body.error.message).toContain('integer');
    const notANumber = await app.http.get('/v1/admin/api_keys?limit=two').set(bearer(app.adminKey));
    expectError(notANumber, 400, { code: 'invalid_value', param: 'limit' });
    expect(notANumber.body.error.message).toContain('integer');
  });

  it('400 for a JSON body that is not an object', async () => {
    for (const body of ['[]', '[{"name": "x", "tenant_id": "acme"}]']) {
      const response = await createKey().set('Content-Type', 'application/json').send(body);
      expectError(response, 400, { code: 'invalid_value' });
      expect(response.body.error.message).toBe('The request body must be a JSON object');
    }
    const scalar = await createKey().set('Content-Type', 'application/json').send('"x"');
    expectError(scalar, 400, { code: 'invalid_json' });
  });

  it('401 for a missing, malformed or unknown credential', async () => {
    expectError(await app.http.get('/v1/admin/api_keys'), 401, { code: 'missing_credentials' });
    expectError(await app.http.get('/v1/admin/api_keys').set('Authorization', `Basic ${app.adminKey}`), 401, {
      code: 'missing_credentials',
    });
    expectError(await app.http.get('/v1/admin/api_keys').set(bearer('tg_not_a_key_of_ours_at_all')), 401, {
      code: 'invalid_api_key',
    });
    // Without JWT configuration, anything that is not an API key is simply not a valid credential.
    expectError(await app.http.get('/v1/admin/api_keys').set(bearer('eyJhbGciOiJIUzI1NiJ9.e30.sig')), 401, {
      code: 'invalid_api_key',
    });
  });

  it('400 naming the header for a malformed X-Agent-Profile', async () => {
    const response = await app.http
      .get('/v1/tenants/acme/settings')
      .set(bearer(memberKey))
      .set('X-Agent-Profile', 'not a profile');
    expectError(response, 400, { code: 'invalid_value', param: 'X-Agent-Profile' });
  });

  it('403 admin_required for a member on an admin route', async () => {
    expectError(await app.http.get('/v1/admin/api_keys').set(bearer(memberKey)), 403, { code: 'admin_required' });
  });

  it('404 unknown_route for a path that does not exist, authenticated or not', async () => {
    expectError(await app.http.get('/v1/no_such_thing'), 404, { code: 'unknown_route' });
    expectError(await app.http.get('/v1/no_such_thing').set(bearer(app.adminKey)), 404, { code: 'unknown_route' });
  });

  it('405 method_not_allowed with Allow for a known path and a method it does not take', async () => {
    const collection = await app.http.patch('/v1/admin/api_keys').set(bearer(app.adminKey));
    expectError(collection, 405, { code: 'method_not_allowed' });
    expect(collection.headers.allow).toBe('GET, HEAD, POST');
    const item = await app.http.post('/v1/admin/api_keys/key_doesnotexist');
    expectError(item, 405, { code: 'method_not_allowed' });
    expect(item.headers.allow).toBe('DELETE, GET, HEAD');
  });

  it('401 carries a WWW-Authenticate challenge, also without OAuth', async () => {
    const missing = await app.http.get('/v1/tools');
    expectError(missing, 401, { code: 'missing_credentials' });
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="toolgate"');
    const wrong = await app.http.get('/v1/tools').set(bearer('tg_not_a_real_key_000000000000000'));
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="toolgate", error="invalid_token"');
  });

  it('415 unsupported_media_type naming the content type of a body that is not JSON', async () => {
    const response = await app.http
      .post('/v1/admin/api_keys')
      .set(bearer(app.adminKey))
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify({ name: 'ci', tenant_id: 'acme' }));
    expectError(response, 415, { code: 'unsupported_media_type' });
    expect(response.body.error.message).toContain('text/plain');
    const keys = await app.http.get('/v1/admin/api_keys?tenant_id=acme').set(bearer(app.adminKey)).expect(200);
    expect(keys.body.data.map((key: { name: string }) => key.name)).not.toContain('ci');
  });

  it('404 not_found naming the id for an unknown object', async () => {
    const response = await app.http.get('/v1/admin/api_keys/key_doesnotexist').set(bearer(app.adminKey));
    expectError(response, 404, { code: 'not_found', param: 'id' });
    expect(response.body.error.message).toContain('key_doesnotexist');
  });

  it('413 payload_too_large for a body over server.body_limit', async () => {
    const response = await createKey().send({ name: 'x'.repeat(2048), tenant_id: 'acme' });
    expectError(response, 413, { code: 'payload_too_large' });
  });

  it('415 for a JSON body in a charset the server does not read', async () => {
    const response = await createKey().set('Content-Type', 'application/json; charset=ebcdic').send('{}');
    expectError(response, 415, { code: 'unsupported_encoding' });
  });

  it('500 with only an error id for an unexpected error, no internals', async () => {
    const response = await app.http.get('/test/bug');
    expectError(response, 500, { code: 'internal_error', type: 'server_error' });
    expect(response.body.error.message).toMatch(/\(error id [0-9a-f-]{36}\)$/);
    expect(response.text).not.toMatch(/10\.0\.0\.7|secret-module|Error:/);
  });

  describe('x-request-id', () => {
    it('is minted for every response, success or failure', async () => {
      const responses = await Promise.all([
        app.http.get('/healthz'),
        app.http.get('/v1/admin/api_keys').set(bearer(app.adminKey)),
        app.http.get('/v1/admin/api_keys'),
        app.http.get('/nowhere'),
      ]);
      const ids = responses.map((response) => response.headers['x-request-id']);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it("echoes the caller's id when it is sane, on success and on error", async () => {
      const ok = await app.http.get('/healthz').set('x-request-id', 'trace-abc.123:x');
      expect(ok.headers['x-request-id']).toBe('trace-abc.123:x');
      const failed = await app.http.get('/v1/admin/api_keys').set('x-request-id', 'trace-def');
      expect(failed.headers['x-request-id']).toBe('trace-def');
      const beforeRouting = await createKey()
        .set('x-request-id', 'trace-json')
        .set('Content-Type', 'application/json')
        .send('{');
      expect(beforeRouting.headers['x-request-id']).toBe('trace-json');
    });

    it('replaces an id that is not sane', async () => {
      const response = await app.http.get('/healthz').set('x-request-id', 'no spaces <allowed>');
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });
});

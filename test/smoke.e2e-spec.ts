import { bearer, startApp } from './support/app';

it.each(['postgres', 'pglite'] as const)('boots on %s', async (engine) => {
  const t = await startApp(engine);
  try {
    const r = await t.http.get('/readyz');
    console.log(r.status, r.body);
    const k = await t.http.post('/v1/admin/api_keys').set(bearer(t.adminKey)).send({ name: 'x', tenant_id: 'acme' });
    console.log(k.status, k.body, k.headers['x-request-id']);
    const l = await t.http.get('/v1/admin/api_keys').set(bearer(t.adminKey));
    console.log(l.status, l.body);
    console.log(
      (
        await t.http
          .post('/v1/admin/api_keys')
          .set(bearer(t.adminKey))
          .set('content-type', 'application/json')
          .send('{bad')
      ).body,
    );
    console.log((await t.http.get('/nope')).status);
    console.log(
      (await t.http.get('/metrics')).text
        .split('\n')
        .filter((l) => l.startsWith('toolgate_http'))
        .slice(0, 5),
    );
    console.log((await t.http.get('/openapi.json')).body.paths);
  } finally {
    await t.close();
  }
});

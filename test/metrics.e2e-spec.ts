import { bearer, startApp, TestApp } from './support/app';
import { expectError } from './support/errors';

/** The value of one sample in the Prometheus text format, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2].split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(match[3]);
  }
  return undefined;
}

describe('/metrics', () => {
  describe('open (no bearer_token)', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startApp('postgres');
    });
    afterAll(() => app?.close());

    it('counts requests by route pattern, never by raw URL, and unknown paths as unmatched', async () => {
      const admin = bearer(app.adminKey);
      expect((await app.http.get('/v1/admin/api_keys/key_rawid0001').set(admin)).status).toBe(404);
      expect((await app.http.get('/v1/admin/api_keys/key_rawid0002').set(admin)).status).toBe(404);
      expect((await app.http.get('/v1/tenants/acme/settings').set(admin)).status).toBe(200);
      expect((await app.http.get('/v1/tenants/acme/settings')).status).toBe(401);
      expect((await app.http.get('/no/such/path/rawpath0003')).status).toBe(404);

      const scrape = await app.http.get('/metrics');
      expect(scrape.status).toBe(200);
      expect(scrape.headers['content-type']).toMatch(/^text\/plain/);
      const text = scrape.text;
      const requests = 'toolgate_http_requests_total';
      expect(sample(text, requests, { method: 'GET', route: '/v1/admin/api_keys/:id', status: '404' })).toBe(2);
      expect(sample(text, requests, { method: 'GET', route: '/v1/tenants/:tenant_id/settings', status: '200' })).toBe(
        1,
      );
      expect(sample(text, requests, { method: 'GET', route: '/v1/tenants/:tenant_id/settings', status: '401' })).toBe(
        1,
      );
      expect(sample(text, requests, { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
      expect(text).not.toMatch(/rawid000|rawpath000|acme/);
      expect(sample(text, 'toolgate_http_request_duration_seconds_count', { route: '/v1/admin/api_keys/:id' })).toBe(2);
      expect(text).toContain('process_cpu_seconds_total');
    });

    it('exports the event loop delay by quantile, measured since the previous scrape', async () => {
      // Blocks the loop for a while: a scrape after it must see at least that delay as its maximum. On a loaded
      // machine the sampling timer may record the late tick only after a scrape has already reset the
      // histogram, so the block is repeated until one scrape shows it (a few tries at most).
      const worstAfterBlock = async () => {
        await app.http.get('/metrics');
        const until = Date.now() + 150;
        while (Date.now() < until);
        // The sampling timer records the late tick when it next runs: let it, before scraping.
        await new Promise((resolve) => setTimeout(resolve, 50));
        return (await app.http.get('/metrics')).text;
      };
      let text = await worstAfterBlock();
      for (let attempt = 1; attempt < 5; attempt++) {
        if ((sample(text, 'toolgate_event_loop_delay_seconds', { quantile: '1' }) ?? 0) >= 0.1) break;
        text = await worstAfterBlock();
      }
      expect(text).toContain('# TYPE toolgate_event_loop_delay_seconds gauge');
      for (const quantile of ['0.5', '0.9', '0.99']) {
        expect(sample(text, 'toolgate_event_loop_delay_seconds', { quantile })).toBeGreaterThanOrEqual(0);
      }
      expect(sample(text, 'toolgate_event_loop_delay_seconds', { quantile: '1' })).toBeGreaterThanOrEqual(0.1);
    });

    it('counts a request whose body is malformed under its route (bodies are read after authentication)', async () => {
      const malformed = await app.http
        .post('/v1/admin/api_keys')
        .set(bearer(app.adminKey))
        .set('Content-Type', 'application/json')
        .send('{"name": ');
      expect(malformed.status).toBe(400);
      const text = (await app.http.get('/metrics')).text;
      expect(
        sample(text, 'toolgate_http_requests_total', { method: 'POST', route: '/v1/admin/api_keys', status: '400' }),
      ).toBe(1);
    });
  });

  describe('behind metrics.bearer_token, with a custom namespace', () => {
    let app: TestApp;
    const token = 'scrape-token-123';

    beforeAll(async () => {
      app = await startApp('postgres', { config: { metrics: { bearer_token: token, namespace: 'gateway' } } });
    });
    afterAll(() => app?.close());

    it('refuses a scrape without the token or with a wrong one', async () => {
      expectError(await app.http.get('/metrics'), 401, { code: 'invalid_metrics_token' });
      expectError(await app.http.get('/metrics').set(bearer('scrape-token-12')), 401, {
        code: 'invalid_metrics_token',
      });
      expectError(await app.http.get('/metrics').set(bearer(app.adminKey)), 401, { code: 'invalid_metrics_token' });
    });

    it('answers with the token, under the configured namespace, counting the refused scrapes', async () => {
      const refusals = async () =>
        sample((await app.http.get('/metrics').set(bearer(token))).text, 'gateway_http_requests_total', {
          route: '/metrics',
          status: '401',
        }) ?? 0;
      const before = await refusals();
      for (const wrong of ['', 'scrape-token-12', app.adminKey]) {
        expect((await app.http.get('/metrics').set(wrong ? bearer(wrong) : {})).status).toBe(401);
      }
      const scrape = await app.http.get('/metrics').set(bearer(token));
      expect(scrape.status).toBe(200);
      expect(scrape.text).toContain('# TYPE gateway_http_requests_total counter');
      expect(scrape.text).not.toContain('toolgate_http_requests_total');
      expect(scrape.text).toContain('# TYPE gateway_event_loop_delay_seconds gauge');
      expect(sample(scrape.text, 'gateway_http_requests_total', { route: '/metrics', status: '401' })).toBe(before + 3);
    });
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, startApp, TestApp } from './support/app';
import { bodies, FakeSearchServer, hits } from './support/fake-search-server';
import { metricValue, waitFor } from './support/wait';

/**
 * web_search through the real service: HTTP -> dispatcher -> FunctionRegistry -> WebSearchProvider ->
 * a local SearXNG (and Brave) speaking the documented JSON. Only the remote search services are fakes.
 */
describe('web_search', () => {
  let t: TestApp;
  let searxng: FakeSearchServer;
  let brave: FakeSearchServer;
  const secrets = mkdtempSync(join(tmpdir(), 'toolgate-websearch-'));

  beforeAll(async () => {
    searxng = await FakeSearchServer.serving('searxng', hits('searx', 8));
    brave = await FakeSearchServer.serving('brave', hits('brave', 8));
    const braveKey = join(secrets, 'brave-key');
    writeFileSync(braveKey, 'brave-e2e-key\n');
    t = await startApp('pglite', {
      config: {
        builtins: {
          web_search: {
            enabled: true,
            search_engine_url: searxng.url,
            backends: ['searxng', 'brave'],
            timeout: '60s', // longer than any test: only cancellation can end a hanging request early
            deny_domains: ['site2.example.com'],
            brave: { url: brave.url, api_key_file: braveKey },
          },
        },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([searxng?.close(), brave?.close()]);
    rmSync(secrets, { recursive: true, force: true });
  });

  const call = (args: unknown, extra: Record<string, unknown> = {}) =>
    t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'web_search', arguments: args, ...extra });

  it('is listed among the tool definitions with its strict parameters', async () => {
    const res = await t.http.get('/v1/tool_definitions?format=mcp').set(bearer(t.adminKey)).expect(200);
    const tool = res.body.data.find((d: { name: string }) => d.name === 'web_search');
    expect(tool.inputSchema).toMatchObject({
      type: 'object',
      required: ['query'],
      additionalProperties: false,
      properties: { query: { type: 'string', maxLength: 400 }, max_results: { type: 'integer', maximum: 20 } },
    });
    expect(tool.outputSchema.required).toEqual(['results', 'count', 'backend']);
  });

  it('answers with structured results from SearXNG, filtered by domain', async () => {
    const res = await call({ query: 'toolgate e2e', max_results: 3 }).expect(200);
    expect(res.body).toMatchObject({ object: 'tool_call', name: 'web_search', status: 'completed', error: null });
    const expected = hits('searx', 4).filter((h) => !h.url.includes('site2.'));
    expect(res.body.output).toEqual({ results: expected, count: 3, backend: 'searxng' });
    const sent = searxng.requests.at(-1)!;
    expect(sent.path).toBe('/search');
    expect(sent.query.get('q')).toBe('toolgate e2e');
    expect(sent.query.get('format')).toBe('json');
  });

  it('answers a repeated query from its cache', async () => {
    const before = searxng.requests.length;
    const first = await call({ query: 'cached question' }).expect(200);
    const second = await call({ query: 'cached question' }).expect(200);
    expect(second.body.output).toEqual(first.body.output);
    expect(searxng.requests.length).toBe(before + 1);
  });

  it('falls back to Brave when SearXNG fails', async () => {
    searxng.respondWith(() => ({ status: 503, text: 'maintenance' }));
    try {
      const res = await call({ query: 'fallback please', max_results: 2 }).expect(200);
      expect(res.body.status).toBe('completed');
      const expected = hits('brave', 3).filter((h) => !h.url.includes('site2.'));
      expect(res.body.output).toEqual({ results: expected, count: 2, backend: 'brave' });
      const sent = brave.requests.at(-1)!;
      expect(sent.path).toBe('/res/v1/web/search');
      expect(sent.headers['x-subscription-token']).toBe('brave-e2e-key');
    } finally {
      searxng.respondWith(() => ({ json: bodies.searxng(hits('searx', 8)) }));
    }
  });

  it('fails the call, naming every backend, when all of them fail', async () => {
    searxng.respondWith(() => ({ status: 500, text: '' }));
    brave.respondWith(() => ({ status: 429, json: {}, headers: { 'retry-after': '7' } }));
    try {
      const res = await call({ query: 'everything is down' }).expect(200);
      expect(res.body.status).toBe('failed');
      const message =
        'Every web search backend failed: searxng: HTTP 500; brave: rate limited (HTTP 429, retry after 7 s)';
      expect(res.body.error).toEqual({ code: 'tool_error', message });
      expect(res.body.output).toEqual({ error: { code: 'search_failed', message } });
    } finally {
      searxng.respondWith(() => ({ json: bodies.searxng(hits('searx', 8)) }));
      brave.respondWith(() => ({ json: bodies.brave(hits('brave', 8)) }));
    }
  });

  it('aborts the backend request when the call times out, and tries no further backend', async () => {
    searxng.respondWith(() => 'hang');
    const braveBefore = brave.requests.length;
    const abandonedBefore = searxng.abandoned;
    try {
      const res = await call({ query: 'never answered' }, { timeout_ms: 300 }).expect(200);
      expect(res.body.status).toBe('failed');
      expect(res.body.error.code).toBe('timeout');
      await waitFor(() => searxng.abandoned === abandonedBefore + 1, 5000, 'the SearXNG request to be aborted');
      expect(brave.requests.length).toBe(braveBefore);
    } finally {
      searxng.respondWith(() => ({ json: bodies.searxng(hits('searx', 8)) }));
    }
  });

  it('refuses invalid arguments before searching', async () => {
    const before = searxng.requests.length;
    const res = await call({ query: 'x', max_results: 50 }).expect(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_arguments', param: 'arguments' });
    expect(res.body.error.message).toContain('max_results');
    await call({ query: 'x', site: 'example.com' }).expect(400);
    expect(searxng.requests.length).toBe(before);
  });

  it('suggests web_search for a misspelt name', async () => {
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'web_serch', arguments: { query: 'x' } })
      .expect(400);
    expect(res.body.error).toMatchObject({
      code: 'unknown_tool',
      message: "Unknown tool 'web_serch'. Did you mean 'web_search'?",
    });
  });

  it('exposes the websearch metrics on /metrics', async () => {
    const scrape = async () => (await t.http.get('/metrics').expect(200)).text;
    const before = await scrape();
    // One call of each outcome: two answered by SearXNG (one of them then from the cache), one by Brave after
    // SearXNG failed, one that every backend failed, and one abandoned at its timeout.
    await call({ query: 'metrics e2e', max_results: 3 }).expect(200);
    await call({ query: 'metrics cached question' }).expect(200);
    await call({ query: 'metrics cached question' }).expect(200);
    const abandonedBefore = searxng.abandoned;
    try {
      searxng.respondWith(() => ({ status: 503, text: 'maintenance' }));
      await call({ query: 'metrics fallback', max_results: 2 }).expect(200);
      searxng.respondWith(() => ({ status: 500, text: '' }));
      brave.respondWith(() => ({ status: 429, json: {}, headers: { 'retry-after': '7' } }));
      await call({ query: 'metrics everything is down' }).expect(200);
      searxng.respondWith(() => 'hang');
      await call({ query: 'metrics never answered' }, { timeout_ms: 300 }).expect(200);
      await waitFor(() => searxng.abandoned === abandonedBefore + 1, 5000, 'the SearXNG request to be aborted');
    } finally {
      searxng.respondWith(() => ({ json: bodies.searxng(hits('searx', 8)) }));
      brave.respondWith(() => ({ json: bodies.brave(hits('brave', 8)) }));
    }
    const metrics = await scrape();
    /** How much a series grew during this test. */
    const grown = (name: string, labels: Record<string, string>) =>
      (metricValue(metrics, name, labels) ?? 0) - (metricValue(before, name, labels) ?? 0);
    const value = (name: string, labels: Record<string, string>) => grown(`toolgate_websearch_${name}`, labels);
    expect(value('queries_total', { backend: 'searxng', status: 'ok' })).toBe(2);
    expect(value('queries_total', { backend: 'searxng', status: 'cached' })).toBe(1);
    expect(value('queries_total', { backend: 'searxng', status: 'error' })).toBe(2);
    expect(value('queries_total', { backend: 'searxng', status: 'aborted' })).toBe(1);
    expect(value('queries_total', { backend: 'brave', status: 'ok' })).toBe(1);
    expect(value('queries_total', { backend: 'brave', status: 'rate_limited' })).toBe(1);
    expect(value('results_returned_count', { backend: 'searxng' })).toBe(3);
    expect(value('results_returned_sum', { backend: 'brave' })).toBe(2);
    expect(value('backend_latency_seconds_count', { backend: 'searxng' })).toBe(5);
    expect(value('backend_latency_seconds_count', { backend: 'brave' })).toBe(2);
    const execution = { provider: 'web_search', tool_name: 'web_search' };
    expect(grown('toolgate_builtin_tool_executions_total', { ...execution, status: 'success' })).toBe(4);
  });
});

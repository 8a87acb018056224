import { bodies, FakeSearchServer, hits, ServiceName } from '../../../../../test/support/fake-search-server';
import { SearchAdapter, SearchBackendError, SearchOptions } from '../search-adapter';
import { createAdapter } from '.';

const KEY = 'test-key-123';
const options: SearchOptions = { maxResults: 3, safeSearch: 'moderate' };

let server: FakeSearchServer;
afterEach(() => server?.close());

const adapter = (service: ServiceName, timeoutMs = 5000, url = server.url): SearchAdapter =>
  createAdapter(service, { url, apiKey: service === 'searxng' ? undefined : KEY, timeoutMs });

async function failure(promise: Promise<unknown>): Promise<SearchBackendError> {
  const error: unknown = await promise.then(
    () => new Error('expected the search to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SearchBackendError);
  return error as SearchBackendError;
}

describe('each service is called as it documents its API', () => {
  it('searxng: GET /search?q=..&format=json&safesearch=N, results[].title/url/content', async () => {
    server = await FakeSearchServer.serving('searxng', hits('pg', 10));
    const results = await adapter('searxng').search('postgres locks', { ...options, safeSearch: 'strict' });
    const [request] = server.requests;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/search');
    expect(Object.fromEntries(request.query)).toEqual({ q: 'postgres locks', format: 'json', safesearch: '2' });
    // SearXNG returns a whole page whatever is asked; the adapter keeps maxResults of it.
    expect(results).toEqual(hits('pg', 3).map((h) => ({ title: h.title, url: h.url, snippet: h.snippet })));
  });

  it('brave: GET /res/v1/web/search?q=..&count=N&safesearch=.. with X-Subscription-Token, web.results[].description', async () => {
    server = await FakeSearchServer.start(() => ({
      json: bodies.brave([
        {
          title: 'The <strong>Postgres</strong> manual',
          url: 'https://www.postgresql.org/docs/',
          snippet: 'Explicit <strong>locking</strong> &amp; advisory locks &#x2014; see &quot;13.3&quot;',
        },
      ]),
    }));
    const results = await adapter('brave').search('postgres locks', { ...options, safeSearch: 'off' });
    const [request] = server.requests;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/res/v1/web/search');
    expect(Object.fromEntries(request.query)).toEqual({ q: 'postgres locks', count: '3', safesearch: 'off' });
    expect(request.headers['x-subscription-token']).toBe(KEY);
    expect(request.headers.accept).toBe('application/json');
    // Brave marks matches with HTML; agents get plain text.
    expect(results).toEqual([
      {
        title: 'The Postgres manual',
        url: 'https://www.postgresql.org/docs/',
        snippet: 'Explicit locking & advisory locks — see "13.3"',
      },
    ]);
  });

  it('tavily: POST /search with Bearer auth and {query, max_results}, results[].content', async () => {
    server = await FakeSearchServer.serving('tavily', hits('tv', 2));
    const results = await adapter('tavily').search('who wrote postgres', options);
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/search');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body).toEqual({
      query: 'who wrote postgres',
      max_results: 3,
      search_depth: 'basic',
      include_answer: false,
    });
    expect(results).toEqual(hits('tv', 2));
  });

  it('serper: POST /search with X-API-KEY and {q, num}, organic[].title/link/snippet', async () => {
    server = await FakeSearchServer.serving('serper', hits('sp', 5));
    const results = await adapter('serper').search('node fetch abort', options);
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/search');
    expect(request.headers['x-api-key']).toBe(KEY);
    expect(request.body).toEqual({ q: 'node fetch abort', num: 3 });
    expect(results).toEqual(hits('sp', 3));
  });

  it('keeps a path prefix of the configured base URL (a proxy in front of the service)', async () => {
    server = await FakeSearchServer.serving('brave', hits('px', 1));
    await adapter('brave', 5000, `${server.url}/proxy/brave/`).search('q', options);
    expect(server.requests[0].path).toBe('/proxy/brave/res/v1/web/search');
  });
});

describe('answers without results', () => {
  it.each([
    ['searxng', bodies.searxng([])],
    ['brave', { type: 'search', query: { original: 'zzqx' } }], // Brave omits `web` when nothing was found
    ['tavily', bodies.tavily([])],
    ['serper', { searchParameters: { q: 'zzqx' } }], // Serper omits `organic` likewise
  ] as const)('%s: an empty list', async (service, body) => {
    server = await FakeSearchServer.start(() => ({ json: body }));
    await expect(adapter(service).search('zzqx', options)).resolves.toEqual([]);
  });
});

describe.each(['searxng', 'brave', 'tavily', 'serper'] as const)('%s failures', (service) => {
  it('a 500 is an error naming the status', async () => {
    server = await FakeSearchServer.start(() => ({ status: 500, text: 'upstream exploded' }));
    const error = await failure(adapter(service).search('q', options));
    expect(error).toMatchObject({ backend: service, kind: 'error', message: 'HTTP 500' });
  });

  it('a 429 is rate_limited, with the Retry-After the service sent', async () => {
    server = await FakeSearchServer.start(() => ({
      status: 429,
      json: { detail: 'Too Many Requests' },
      headers: { 'retry-after': '30' },
    }));
    const error = await failure(adapter(service).search('q', options));
    expect(error).toMatchObject({ kind: 'rate_limited', message: 'rate limited (HTTP 429, retry after 30 s)' });
  });

  it('a body that is not JSON is malformed', async () => {
    server = await FakeSearchServer.start(() => ({ text: '<html>Bad gateway</html>' }));
    const error = await failure(adapter(service).search('q', options));
    expect(error).toMatchObject({ kind: 'malformed', message: 'the response is not JSON' });
  });

  it('JSON of the wrong shape is malformed', async () => {
    server = await FakeSearchServer.start(() => ({ json: { results: 'nope', web: [], organic: 7 } }));
    const error = await failure(adapter(service).search('q', options));
    expect(error.kind).toBe('malformed');
  });

  it('results none of which has an http(s) URL are malformed; unusable entries are skipped', async () => {
    const junk = [{ title: 'x', url: 'javascript:alert(1)', snippet: 's' }];
    server = await FakeSearchServer.start(() => ({ json: bodies[service](junk) }));
    expect((await failure(adapter(service).search('q', options))).kind).toBe('malformed');
    server.respondWith(() => ({ json: bodies[service]([...junk, ...hits('ok', 1)]) }));
    await expect(adapter(service).search('q', options)).resolves.toEqual(hits('ok', 1));
  });

  it('a service that never answers is given up after the timeout', async () => {
    server = await FakeSearchServer.start(() => 'hang');
    const error = await failure(adapter(service, 300).search('q', options));
    expect(error).toMatchObject({ kind: 'timeout', message: 'no answer within 300 ms' });
    expect(server.requests).toHaveLength(1);
  });

  it("the caller's AbortSignal cancels the request in flight", async () => {
    server = await FakeSearchServer.start(() => 'hang');
    const controller = new AbortController();
    const search = adapter(service, 60_000).search('q', { ...options, signal: controller.signal });
    await waitFor(() => server.requests.length === 1);
    controller.abort();
    const error = await failure(search);
    expect(error).toMatchObject({ kind: 'aborted', message: 'the call was cancelled' });
  });

  it('an unreachable service is an error naming the cause', async () => {
    server = await FakeSearchServer.serving(service, []);
    const url = server.url;
    await server.close();
    const error = await failure(adapter(service, 5000, url).search('q', options));
    expect(error).toMatchObject({ kind: 'error', message: 'request failed (ECONNREFUSED)' });
  });
});

it('a 401 from a keyed service says which key to check', async () => {
  server = await FakeSearchServer.start(() => ({ status: 401, json: { message: 'Unauthorized' } }));
  await expect(failure(adapter('serper').search('q', options))).resolves.toMatchObject({
    message: 'HTTP 401 (check SERPER_API_KEY)',
  });
});

it('a keyed service is not followed through a redirect, which could take its key elsewhere', async () => {
  const elsewhere = await FakeSearchServer.serving('tavily', hits('stolen', 1));
  try {
    server = await FakeSearchServer.start(() => ({
      status: 302,
      text: '',
      headers: { location: elsewhere.url + '/search' },
    }));
    await expect(failure(adapter('tavily').search('q', options))).resolves.toMatchObject({
      kind: 'error',
      message: `HTTP 302 to ${elsewhere.url}/search: not followed with an API key; configure that URL instead`,
    });
    expect(elsewhere.requests).toHaveLength(0);
  } finally {
    await elsewhere.close();
  }
});

it('SearXNG (no key) is followed through a redirect', async () => {
  const moved = await FakeSearchServer.serving('searxng', hits('moved', 1));
  try {
    server = await FakeSearchServer.start(() => ({
      status: 301,
      text: '',
      headers: { location: moved.url + '/search?q=q&format=json' },
    }));
    await expect(adapter('searxng').search('q', options)).resolves.toEqual(hits('moved', 1));
  } finally {
    await moved.close();
  }
});

it('a 403 from SearXNG points at the json format setting', async () => {
  server = await FakeSearchServer.start(() => ({ status: 403, text: 'Forbidden' }));
  await expect(failure(adapter('searxng').search('q', options))).resolves.toMatchObject({
    message: 'HTTP 403 (is "json" listed in search.formats of the SearXNG settings.yml?)',
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

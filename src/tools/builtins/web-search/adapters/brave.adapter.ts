import {
  AdapterOptions,
  endpoint,
  isObject,
  requestJson,
  SearchAdapter,
  SearchBackendError,
  SearchOptions,
  SearchResult,
  toResults,
} from '../search-adapter';

/**
 * Brave Search API: `GET {url}/res/v1/web/search?q=...&count=N&safesearch=...` with the key in
 * `X-Subscription-Token`; results are in `web.results[]` as `{title, url, description}` (HTML-marked).
 * A query without web results has no `web` section.
 */
export class BraveAdapter implements SearchAdapter {
  readonly name = 'brave' as const;

  constructor(private readonly options: AdapterOptions) {}

  async search(query: string, { maxResults, safeSearch, signal }: SearchOptions): Promise<SearchResult[]> {
    const url = endpoint(this.options.url, '/res/v1/web/search');
    url.search = new URLSearchParams({ q: query, count: String(maxResults), safesearch: safeSearch }).toString();
    const body = await requestJson({
      backend: this.name,
      url,
      method: 'GET',
      headers: { 'x-subscription-token': this.options.apiKey ?? '' },
      carriesKey: true,
      timeoutMs: this.options.timeoutMs,
      signal,
      statusHint: (status) => (status === 401 || status === 403 ? 'check BRAVE_API_KEY' : undefined),
    });
    if (!isObject(body)) throw new SearchBackendError(this.name, 'malformed', 'the response is not a JSON object');
    if (body.web === undefined && body.type === 'search') return [];
    const web = isObject(body.web) ? body.web.results : undefined;
    return toResults(
      this.name,
      web,
      { list: 'web.results', title: 'title', url: 'url', snippet: 'description' },
      maxResults,
    );
  }
}

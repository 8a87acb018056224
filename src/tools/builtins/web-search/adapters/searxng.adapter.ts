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

const SAFE_SEARCH = { off: '0', moderate: '1', strict: '2' } as const;

/**
 * SearXNG, self-hosted: `GET {url}/search?q=...&format=json` answers `{results: [{title, url, content}]}`.
 * It returns one page (about 20 results) whatever is asked, so the list is cut here. The instance must
 * list `json` in `search.formats` of its settings.yml; otherwise it answers 403.
 */
export class SearxngAdapter implements SearchAdapter {
  readonly name = 'searxng' as const;

  constructor(private readonly options: AdapterOptions) {}

  async search(query: string, { maxResults, safeSearch, signal }: SearchOptions): Promise<SearchResult[]> {
    const url = endpoint(this.options.url, '/search');
    url.search = new URLSearchParams({ q: query, format: 'json', safesearch: SAFE_SEARCH[safeSearch] }).toString();
    const body = await requestJson({
      backend: this.name,
      url,
      method: 'GET',
      timeoutMs: this.options.timeoutMs,
      signal,
      statusHint: (status) =>
        status === 403 ? 'is "json" listed in search.formats of the SearXNG settings.yml?' : undefined,
    });
    if (!isObject(body)) throw new SearchBackendError(this.name, 'malformed', 'the response is not a JSON object');
    return toResults(
      this.name,
      body.results,
      { list: 'results', title: 'title', url: 'url', snippet: 'content' },
      maxResults,
    );
  }
}

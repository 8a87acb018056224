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
 * Serper (Google results): `POST {url}/search` with `X-API-KEY` and `{q, num}`; results are `organic[]` as
 * `{title, link, snippet, position}`. Serper has no safe-search parameter.
 */
export class SerperAdapter implements SearchAdapter {
  readonly name = 'serper' as const;

  constructor(private readonly options: AdapterOptions) {}

  async search(query: string, { maxResults, signal }: SearchOptions): Promise<SearchResult[]> {
    const body = await requestJson({
      backend: this.name,
      url: endpoint(this.options.url, '/search'),
      method: 'POST',
      headers: { 'x-api-key': this.options.apiKey ?? '' },
      body: { q: query, num: maxResults },
      carriesKey: true,
      timeoutMs: this.options.timeoutMs,
      signal,
      statusHint: (status) => (status === 401 || status === 403 ? 'check SERPER_API_KEY' : undefined),
    });
    if (!isObject(body)) throw new SearchBackendError(this.name, 'malformed', 'the response is not a JSON object');
    // An answer with no organic results omits the list but still echoes its searchParameters.
    if (body.organic === undefined && isObject(body.searchParameters)) return [];
    return toResults(
      this.name,
      body.organic,
      { list: 'organic', title: 'title', url: 'link', snippet: 'snippet' },
      maxResults,
    );
  }
}

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
 * Tavily: `POST {url}/search` with `Authorization: Bearer <key>` and `{query, max_results, search_depth}`;
 * results are `results[]` as `{title, url, content, score}`. Tavily has no safe-search parameter.
 */
export class TavilyAdapter implements SearchAdapter {
  readonly name = 'tavily' as const;

  constructor(private readonly options: AdapterOptions) {}

  async search(query: string, { maxResults, signal }: SearchOptions): Promise<SearchResult[]> {
    const body = await requestJson({
      backend: this.name,
      url: endpoint(this.options.url, '/search'),
      method: 'POST',
      headers: { authorization: `Bearer ${this.options.apiKey ?? ''}` },
      // "basic" costs one credit; answers, raw page content and images are not used by the tool.
      body: { query, max_results: maxResults, search_depth: 'basic', include_answer: false },
      carriesKey: true,
      timeoutMs: this.options.timeoutMs,
      signal,
      statusHint: (status) => (status === 401 || status === 403 ? 'check TAVILY_API_KEY' : undefined),
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

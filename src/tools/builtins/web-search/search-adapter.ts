import { findTooDeep } from '../../../common/json-depth';
import type { BackendName } from './search-backends';
import type { SafeSearch } from './web-search.config';
import { readBoundedText } from '../../../common/bounded-body';

/** One web result, the same shape whichever service produced it. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchOptions {
  /** At most this many results are returned. */
  maxResults: number;
  safeSearch: SafeSearch;
  /** The caller's cancellation (client gone, tool timeout, shutdown); aborts the request. */
  signal?: AbortSignal;
}

/** A search service. Adapters give up after their timeout and throw SearchBackendError for every failure. */
export interface SearchAdapter {
  readonly name: BackendName;
  search(query: string, options: SearchOptions): Promise<SearchResult[]>;
}

export interface AdapterOptions {
  /** Base URL of the service; the adapter appends the documented path. */
  url: string;
  apiKey?: string;
  timeoutMs: number;
}

/** How a backend request failed; also the `status` label of `<ns>_websearch_queries_total`. */
export type FailureKind = 'error' | 'timeout' | 'rate_limited' | 'malformed' | 'aborted';

export class SearchBackendError extends Error {
  constructor(
    readonly backend: BackendName,
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'SearchBackendError';
  }
}

/** Larger answers are refused rather than buffered: a page of results is a few tens of kilobytes. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A page of results is a handful of levels deep; anything far deeper is refused before it is read. */
const MAX_BODY_DEPTH = 64;
const MAX_TITLE_CHARS = 300;
const MAX_SNIPPET_CHARS = 1000;
/** How much raw text per kept character a snippet may spend on markup and entities. */
const MARKUP_ALLOWANCE = 8;

export interface JsonRequest {
  backend: BackendName;
  url: URL;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The request carries an API key: redirects are refused rather than followed (they could take it elsewhere). */
  carriesKey?: boolean;
  /** Extra words for an error status, e.g. which key to check on 401. */
  statusHint?: (status: number) => string | undefined;
}

/**
 * One HTTP exchange with a search service through Node's fetch: the caller's signal and the adapter's
 * timeout both abort it, and every way it can go wrong becomes a SearchBackendError of the right kind.
 */
export async function requestJson(request: JsonRequest): Promise<unknown> {
  const { backend, signal, timeoutMs } = request;
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const failed = (error: unknown): SearchBackendError => {
    if (error instanceof SearchBackendError) return error;
    if (signal?.aborted) return new SearchBackendError(backend, 'aborted', 'the call was cancelled');
    if (timeout.aborted) return new SearchBackendError(backend, 'timeout', `no answer within ${seconds(timeoutMs)}`);
    return new SearchBackendError(backend, 'error', `request failed (${networkReason(error)})`);
  };
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: {
        accept: 'application/json',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      redirect: request.carriesKey ? 'manual' : 'follow',
      signal: combined,
    });
    if (!response.ok) {
      // Only releases the socket of an answer already refused; its failure changes nothing.
      await response.body?.cancel().catch(() => undefined);
      throw statusError(backend, response, request.statusHint);
    }
    const text = await readBody(backend, response);
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      throw new SearchBackendError(backend, 'malformed', 'the response is not JSON');
    }
    if (findTooDeep(body, MAX_BODY_DEPTH) !== undefined) {
      throw new SearchBackendError(
        backend,
        'malformed',
        `the response is nested more than ${MAX_BODY_DEPTH} levels deep`,
      );
    }
    return body;
  } catch (error) {
    throw failed(error);
  }
}

function statusError(backend: BackendName, response: Response, hint: JsonRequest['statusHint']): SearchBackendError {
  if (response.status === 429) {
    const retryAfter = response.headers.get('retry-after');
    const when = retryAfter ? `, retry after ${retryAfter}${/^\d+$/.test(retryAfter) ? ' s' : ''}` : '';
    return new SearchBackendError(backend, 'rate_limited', `rate limited (HTTP 429${when})`);
  }
  const location = response.headers.get('location');
  if (response.status >= 300 && response.status < 400 && location) {
    return new SearchBackendError(
      backend,
      'error',
      `HTTP ${response.status} to ${location}: not followed with an API key; configure that URL instead`,
    );
  }
  const extra = hint?.(response.status);
  return new SearchBackendError(backend, 'error', `HTTP ${response.status}${extra ? ` (${extra})` : ''}`);
}

async function readBody(backend: BackendName, response: Response): Promise<string> {
  const text = await readBoundedText(response, MAX_BODY_BYTES);
  if (text === null) {
    throw new SearchBackendError(backend, 'malformed', `the response exceeds ${MAX_BODY_BYTES} bytes`);
  }
  return text;
}

/** Where one service puts its results, and the field names of each result object. */
export interface ResultFields {
  /** Named in errors, e.g. "web.results". */
  list: string;
  title: string;
  url: string;
  snippet: string;
}

/**
 * Maps a service's result list to SearchResults: text without HTML, only http(s) URLs, at most `maxResults`.
 * Entries that cannot be used are skipped; a list with entries but none usable means the body is malformed.
 */
export function toResults(
  backend: BackendName,
  items: unknown,
  fields: ResultFields,
  maxResults: number,
): SearchResult[] {
  if (!Array.isArray(items)) {
    throw new SearchBackendError(backend, 'malformed', `the response has no ${fields.list} list`);
  }
  const results: SearchResult[] = [];
  for (const item of items) {
    if (results.length >= maxResults) break;
    if (typeof item !== 'object' || item === null) continue;
    const entry = item as Record<string, unknown>;
    const url = webUrl(entry[fields.url]);
    if (!url) continue;
    const title = cleanText(entry[fields.title], MAX_TITLE_CHARS) || new URL(url).hostname;
    results.push({ title, url, snippet: cleanText(entry[fields.snippet], MAX_SNIPPET_CHARS) });
  }
  if (items.length > 0 && results.length === 0) {
    throw new SearchBackendError(backend, 'malformed', `no result has a usable ${fields.url}`);
  }
  return results;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `base` + the service's documented path, keeping any path prefix of the base (a proxy). */
export function endpoint(base: string, path: string): URL {
  return new URL(base.replace(/\/+$/, '') + path);
}

function webUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Services mark matches with HTML (Brave: `<strong>`); agents get plain text. */
function cleanText(value: unknown, limit: number): string {
  if (typeof value !== 'string') return '';
  // Only a bounded prefix can survive the final cut, so a huge snippet costs no more than a long one. The tag
  // pattern stops at the next `<` as well as `>`: `<[^>]*>` rescans to the end from every unclosed `<` (quadratic).
  const text = value
    .slice(0, limit * MARKUP_ALLOWANCE)
    .replace(/<[^<>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
      }
      return ENTITIES[name.toLowerCase()] ?? match;
    })
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

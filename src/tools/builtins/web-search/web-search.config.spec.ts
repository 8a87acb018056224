import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../config/config.loader';
import { resolveWebSearchSettings } from './web-search.config';

const SEARXNG = 'http://searxng.internal:8080';
const settings = (section: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  resolveWebSearchSettings({ builtins: { web_search: { enabled: true, ...section } } }, env);

function configError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ConfigError');
}

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'toolgate-websearch-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('defaults: SearXNG alone, 5 results, 10 s timeout, moderate safe search, 60 s cache', () => {
  expect(settings({ search_engine_url: `${SEARXNG}/` })).toEqual({
    backends: [{ name: 'searxng', url: SEARXNG }],
    maxResults: 5,
    timeoutMs: 10_000,
    safeSearch: 'moderate',
    allowDomains: [],
    denyDomains: [],
    cacheTtlMs: 60_000,
    cacheMaxEntries: 1000,
  });
});

it('takes keys from the environment and keeps the listed order', () => {
  const resolved = settings(
    { search_engine_url: SEARXNG, backends: ['brave', 'searxng', 'serper'] },
    { BRAVE_API_KEY: ' brave-key \n', SERPER_API_KEY: 'serper-key' },
  );
  expect(resolved.backends).toEqual([
    { name: 'brave', url: 'https://api.search.brave.com', apiKey: 'brave-key' },
    { name: 'searxng', url: SEARXNG },
    { name: 'serper', url: 'https://google.serper.dev', apiKey: 'serper-key' },
  ]);
});

it('without a backends list: SearXNG when its URL is set, then every keyed backend that has a key', () => {
  const env = { TAVILY_API_KEY: 'tvly-1', SERPER_API_KEY: 'sp-1' };
  expect(settings({ search_engine_url: SEARXNG }, env).backends.map((b) => b.name)).toEqual([
    'searxng',
    'tavily',
    'serper',
  ]);
  expect(settings({}, { BRAVE_API_KEY: 'b' }).backends.map((b) => b.name)).toEqual(['brave']);
});

it('reads a key from api_key_file (a mounted secret), ahead of the environment variable', () => {
  const file = join(dir, 'tavily-key');
  writeFileSync(file, 'tvly-from-file\n');
  const resolved = settings(
    { backends: ['tavily'], tavily: { api_key_file: file, url: 'http://127.0.0.1:9999/' } },
    { TAVILY_API_KEY: 'tvly-from-env' },
  );
  expect(resolved.backends).toEqual([{ name: 'tavily', url: 'http://127.0.0.1:9999', apiKey: 'tvly-from-file' }]);
});

describe('stops start-up with one line', () => {
  it.each([
    ['brave', 'BRAVE_API_KEY', 'https://brave.com/search/api/'],
    ['tavily', 'TAVILY_API_KEY', 'https://app.tavily.com'],
    ['serper', 'SERPER_API_KEY', 'https://serper.dev'],
  ])('an enabled %s backend without a key names %s and where to get one', (name, variable, signup) => {
    expect(configError(() => settings({ search_engine_url: SEARXNG, backends: ['searxng', name] }))).toBe(
      `Invalid configuration: the ${name} web search backend needs an API key: set ${variable} ` +
        `(get a key at ${signup}) or builtins.web_search.${name}.api_key_file, or remove ${name} from builtins.web_search.backends`,
    );
  });

  it('an unreadable or empty key file', () => {
    const missing = join(dir, 'nope');
    expect(configError(() => settings({ backends: ['brave'], brave: { api_key_file: missing } }))).toBe(
      `Invalid configuration: builtins.web_search.brave.api_key_file = ${JSON.stringify(missing)}: cannot read it (ENOENT)`,
    );
    const empty = join(dir, 'empty');
    writeFileSync(empty, '  \n');
    expect(configError(() => settings({ backends: ['brave'], brave: { api_key_file: empty } }))).toContain(
      'the file is empty',
    );
  });

  it('searxng listed without search_engine_url', () => {
    expect(configError(() => settings({ backends: ['searxng'] }))).toMatch(
      /^Invalid configuration: builtins\.web_search\.search_engine_url = missing: the searxng backend needs the URL of a SearXNG instance/,
    );
  });

  it('enabled with no backend at all', () => {
    expect(configError(() => settings({}))).toBe(
      'Invalid configuration: builtins.web_search is enabled but has no search backend: set ' +
        'builtins.web_search.search_engine_url (a SearXNG instance) or an API key (BRAVE_API_KEY, TAVILY_API_KEY, ' +
        'SERPER_API_KEY) (set it in config.yaml or TOOLGATE_BUILTINS__WEB_SEARCH__SEARCH_ENGINE_URL)',
    );
  });

  it.each([
    [{ max_results: 50 }, 'builtins.web_search.max_results = 50'],
    [{ max_results: 0 }, 'builtins.web_search.max_results = 0'],
    [{ timeout: 'soon' }, 'builtins.web_search.timeout = "soon": expected a duration'],
    [{ timeout: 0 }, 'builtins.web_search.timeout = 0: must be longer than 0'],
    [{ safe_search: 'high' }, 'builtins.web_search.safe_search = "high"'],
    [
      { backends: 'searxng,bing' },
      'builtins.web_search.backends = "searxng,bing": unknown backend "bing"; expected searxng, brave, tavily, serper ' +
        '(set it in config.yaml or TOOLGATE_BUILTINS__WEB_SEARCH__BACKENDS)',
    ],
    [{ backends: [] }, 'builtins.web_search.backends = []: list at least one backend'],
    [
      { backends: ['searxng', 'searxng'] },
      'builtins.web_search.backends = ["searxng","searxng"]: a backend is listed twice',
    ],
    [
      { search_engine_url: 'searxng:8080' },
      'builtins.web_search.search_engine_url = "searxng:8080": expected an http(s) URL',
    ],
    [
      { deny_domains: ['ok.example', 'https://evil.example'] },
      'builtins.web_search.deny_domains = ["ok.example","https://evil.example"]: "https://evil.example" is not a domain',
    ],
    [{ brave: { api_key: 'sk-123' } }, 'unknown key builtins.web_search.brave.api_key'],
    [{ cache_ttl: -1 }, 'builtins.web_search.cache_ttl = -1'],
  ])('%j', (section, expected) => {
    expect(configError(() => settings({ search_engine_url: SEARXNG, ...section }))).toContain(expected);
  });
});

it('normalizes domains: case, a leading "*." and Unicode names (to punycode)', () => {
  const resolved = settings({
    search_engine_url: SEARXNG,
    allow_domains: ['*.Example.COM', 'bücher.de.'],
    deny_domains: '.ads.example.com, tracker.example.net',
  });
  expect(resolved.allowDomains).toEqual(['example.com', 'xn--bcher-kva.de']);
  expect(resolved.denyDomains).toEqual(['ads.example.com', 'tracker.example.net']);
});

it('every key can be set from the environment (TOOLGATE_BUILTINS__WEB_SEARCH__*)', () => {
  const file = join(dir, 'config.yaml');
  writeFileSync(file, 'builtins:\n  web_search:\n    max_results: 3\n');
  const config = loadConfig({
    TOOLGATE_CONFIG: file,
    TOOLGATE_BUILTINS__WEB_SEARCH__ENABLED: 'true',
    TOOLGATE_BUILTINS__WEB_SEARCH__SEARCH_ENGINE_URL: SEARXNG,
    TOOLGATE_BUILTINS__WEB_SEARCH__BACKENDS: 'searxng,brave',
    TOOLGATE_BUILTINS__WEB_SEARCH__MAX_RESULTS: '8',
    TOOLGATE_BUILTINS__WEB_SEARCH__TIMEOUT: '2s',
    TOOLGATE_BUILTINS__WEB_SEARCH__CACHE_TTL: '0',
    TOOLGATE_BUILTINS__WEB_SEARCH__DENY_DOMAINS: '[pinterest.com, quora.com]',
    TOOLGATE_BUILTINS__WEB_SEARCH__BRAVE__URL: 'http://brave-proxy:8080',
  });
  const resolved = resolveWebSearchSettings(config, { BRAVE_API_KEY: 'b-1' });
  expect(resolved).toMatchObject({
    backends: [
      { name: 'searxng', url: SEARXNG },
      { name: 'brave', url: 'http://brave-proxy:8080', apiKey: 'b-1' },
    ],
    maxResults: 8,
    timeoutMs: 2000,
    cacheTtlMs: 0,
    denyDomains: ['pinterest.com', 'quora.com'],
  });
});

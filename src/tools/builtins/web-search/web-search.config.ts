import { z } from 'zod';
import { ConfigError, parseProviderConfig } from '../../../config/config.loader';
import { readSecretFile } from '../../../config/secret-file';
import { duration, flag, integer as anyInteger } from '../../../config/config.schema';
import { BACKEND_NAMES, BackendName, KEYED_BACKENDS, KeyedBackendName } from './search-backends';

/** The most results one query may return: what Brave (`count`) and Tavily (`max_results`) accept. */
export const MAX_RESULTS_CAP = 20;

/** Values from environment overrides arrive as text; these accept the written forms too (see config.schema). */
const integer = (min: number, max: number) => anyInteger().pipe(z.number().min(min).max(max));
/** Lists may also be given (from the environment) as comma-separated text: "searxng,brave". */
const splitCommas = (v: unknown) =>
  typeof v === 'string'
    ? v
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
    : v;

/**
 * A list whose entries are checked one by one, each problem reported against the list itself (so the
 * one-line error names the key an operator sets, not an element index).
 */
const checkedList = <T>(check: (entry: string) => T | { problem: string }) =>
  z.preprocess(splitCommas, z.array(z.string())).transform((entries, ctx) => {
    const values: T[] = [];
    for (const entry of entries) {
      const value = check(entry);
      if (typeof value === 'object' && value !== null && 'problem' in value) {
        ctx.addIssue({ code: 'custom', message: value.problem });
        return z.NEVER;
      }
      values.push(value as T);
    }
    return values;
  });

const httpUrl = () =>
  z.url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://searxng:8080' }).transform(stripSlash);

const backendList = () =>
  checkedList((entry): BackendName | { problem: string } =>
    (BACKEND_NAMES as readonly string[]).includes(entry)
      ? (entry as BackendName)
      : { problem: `unknown backend ${JSON.stringify(entry)}; expected ${BACKEND_NAMES.join(', ')}` },
  ).pipe(
    z
      .array(z.enum(BACKEND_NAMES))
      .min(1, 'list at least one backend')
      .refine((names) => new Set(names).size === names.length, 'a backend is listed twice'),
  );

/**
 * Domains for allow_domains/deny_domains: "example.com" (its subdomains included). A leading "*." or "."
 * is accepted and dropped; Unicode names are converted to their ASCII (punycode) form, as hosts in URLs are.
 */
const domainList = () =>
  checkedList((entry) => {
    const name = entry
      .toLowerCase()
      .replace(/^\*?\./, '')
      .replace(/\.$/, '');
    const ascii = /^[^/:?#@\s]+$/.test(name) ? asciiHost(name) : undefined;
    if (ascii && /^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(ascii)) return ascii;
    return {
      problem: `${JSON.stringify(entry)} is not a domain; expected names such as example.com (subdomains included)`,
    };
  });

const keyedBackendSection = () =>
  z
    .object({
      /** Base URL of the service (a proxy, or a local fake in tests); the documented path is appended. */
      url: httpUrl().optional(),
      /** A file holding the API key (a mounted secret); takes precedence over the environment variable. */
      api_key_file: z.string().min(1).optional(),
    })
    .strict()
    .prefault({});

export const webSearchConfigSchema = z
  .object({
    enabled: flag().default(false),
    /** Base URL of a SearXNG instance with the json format enabled. */
    search_engine_url: httpUrl().optional(),
    /** Backends in the order they are tried; default: searxng (when configured), then every keyed backend with a key. */
    backends: backendList().optional(),
    max_results: integer(1, MAX_RESULTS_CAP).default(5),
    /** Per backend request; the next backend is tried after it. */
    timeout: duration().pipe(z.number().min(1, 'must be longer than 0')).default(10_000),
    safe_search: z.enum(['off', 'moderate', 'strict']).default('moderate'),
    allow_domains: domainList().default([]),
    deny_domains: domainList().default([]),
    /** How long identical queries are answered from memory; 0 disables the cache. */
    cache_ttl: duration().default(60_000),
    cache_max_entries: integer(1, 1_000_000).default(1000),
    brave: keyedBackendSection(),
    tavily: keyedBackendSection(),
    serper: keyedBackendSection(),
  })
  .strict();

export type WebSearchConfig = z.output<typeof webSearchConfigSchema>;
export type SafeSearch = WebSearchConfig['safe_search'];

export interface BackendSettings {
  name: BackendName;
  /** Base URL without a trailing slash. */
  url: string;
  apiKey?: string;
}

/** The validated section with keys resolved: what the provider runs on. */
export interface WebSearchSettings {
  backends: BackendSettings[];
  maxResults: number;
  timeoutMs: number;
  safeSearch: SafeSearch;
  allowDomains: string[];
  denyDomains: string[];
  cacheTtlMs: number;
  cacheMaxEntries: number;
}

const SECTION = 'builtins.web_search';

/**
 * Validates `builtins.web_search` and resolves the backend chain and its API keys (keys come from the
 * environment or a mounted secret file, never from the config file, which is not kept as a secret). Any
 * problem is a ConfigError whose message is the one line printed before start-up stops.
 */
export function resolveWebSearchSettings(
  config: { builtins: Record<string, unknown> },
  env: NodeJS.ProcessEnv = process.env,
): WebSearchSettings {
  const section = parseProviderConfig(config, 'web_search', webSearchConfigSchema);
  const names = section.backends ?? defaultBackends(section, env);
  if (names.length === 0) {
    throw new ConfigError(
      `Invalid configuration: ${SECTION} is enabled but has no search backend: set ${SECTION}.search_engine_url ` +
        `(a SearXNG instance) or an API key (${KEYED_BACKENDS.map((b) => b.envVar).join(', ')}) ` +
        `(set it in config.yaml or TOOLGATE_BUILTINS__WEB_SEARCH__SEARCH_ENGINE_URL)`,
    );
  }
  return {
    backends: names.map((name) => backendSettings(name, section, env)),
    maxResults: section.max_results,
    timeoutMs: section.timeout,
    safeSearch: section.safe_search,
    allowDomains: section.allow_domains,
    denyDomains: section.deny_domains,
    cacheTtlMs: section.cache_ttl,
    cacheMaxEntries: section.cache_max_entries,
  };
}

/** searxng when its URL is set, then each keyed backend that has a key (file or environment). */
function defaultBackends(section: WebSearchConfig, env: NodeJS.ProcessEnv): BackendName[] {
  const names: BackendName[] = section.search_engine_url ? ['searxng'] : [];
  for (const backend of KEYED_BACKENDS) {
    if (section[backend.name].api_key_file || env[backend.envVar]?.trim()) names.push(backend.name);
  }
  return names;
}

function backendSettings(name: BackendName, section: WebSearchConfig, env: NodeJS.ProcessEnv): BackendSettings {
  if (name === 'searxng') {
    if (!section.search_engine_url) {
      throw new ConfigError(
        `Invalid configuration: ${SECTION}.search_engine_url = missing: the searxng backend needs the URL of a ` +
          `SearXNG instance with the json format enabled, e.g. http://searxng:8080, or remove searxng from ` +
          `${SECTION}.backends (set it in config.yaml or TOOLGATE_BUILTINS__WEB_SEARCH__SEARCH_ENGINE_URL)`,
      );
    }
    return { name, url: section.search_engine_url };
  }
  const backend = KEYED_BACKENDS.find((b) => b.name === name)!;
  const options = section[name];
  return { name, url: options.url ?? backend.defaultUrl, apiKey: apiKey(backend.name, options.api_key_file, env) };
}

function apiKey(name: KeyedBackendName, file: string | undefined, env: NodeJS.ProcessEnv): string {
  const backend = KEYED_BACKENDS.find((b) => b.name === name)!;
  if (file) return readSecretFile(`${SECTION}.${name}.api_key_file`, file);
  const key = env[backend.envVar]?.trim();
  if (!key) {
    throw new ConfigError(
      `Invalid configuration: the ${name} web search backend needs an API key: set ${backend.envVar} ` +
        `(get a key at ${backend.signupUrl}) or ${SECTION}.${name}.api_key_file, or remove ${name} from ${SECTION}.backends`,
    );
  }
  return key;
}

function asciiHost(name: string): string | undefined {
  try {
    return new URL(`http://${name}`).hostname;
  } catch {
    return undefined;
  }
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

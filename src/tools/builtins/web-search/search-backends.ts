/** The search services web_search can use, in the order operators usually prefer them. */
export const BACKEND_NAMES = ['searxng', 'brave', 'tavily', 'serper'] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];
export type KeyedBackendName = Exclude<BackendName, 'searxng'>;

export interface KeyedBackend {
  name: KeyedBackendName;
  /** The environment variable the key comes from, `<SERVICE>_API_KEY`. */
  envVar: string;
  /** Named in the start-up error when the key is missing. */
  signupUrl: string;
  /** Base URL of the hosted service; `builtins.web_search.<name>.url` overrides it. */
  defaultUrl: string;
}

/** The hosted services that need an API key. SearXNG is self-hosted and needs only its URL. */
export const KEYED_BACKENDS: readonly KeyedBackend[] = [
  {
    name: 'brave',
    envVar: 'BRAVE_API_KEY',
    signupUrl: 'https://brave.com/search/api/',
    defaultUrl: 'https://api.search.brave.com',
  },
  {
    name: 'tavily',
    envVar: 'TAVILY_API_KEY',
    signupUrl: 'https://app.tavily.com',
    defaultUrl: 'https://api.tavily.com',
  },
  {
    name: 'serper',
    envVar: 'SERPER_API_KEY',
    signupUrl: 'https://serper.dev',
    defaultUrl: 'https://google.serper.dev',
  },
];

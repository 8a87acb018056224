/** Longest redirect URI accepted, in characters: enough for any real callback, bounded for storage and parsing. */
export const MAX_REDIRECT_URI_LENGTH = 2000;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/**
 * Characters a URL parser drops or reads as something else (a backslash is a slash to WHATWG parsers, but not to
 * every client's): with them a URI can mean one place here and another to whoever follows it.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const AMBIGUOUS_CHARACTERS = /[\\\x00-\x20\x7f]/;

/**
 * Why a redirect URI cannot be registered or requested, or undefined when it can: https, or http on a loopback
 * host (RFC 8252 section 7.3, for native clients listening on a local port); no fragment (RFC 6749 section
 * 3.1.2), no user information, nothing a parser would silently rewrite.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (AMBIGUOUS_CHARACTERS.test(uri)) return 'must not contain backslashes, spaces or control characters';
  const url = parse(uri);
  if (!url) return 'is not an absolute URL';
  if (url.hash !== '' || uri.includes('#')) return 'must not contain a fragment';
  // The parser finds user information only where it sees an authority; any "@" before the path is refused too.
  if (url.username !== '' || url.password !== '' || authorityOf(uri).includes('@')) {
    return 'must not contain user information';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'must use https, or http on a loopback host (127.0.0.1, [::1] or localhost)';
}

/** Whether a (valid) redirect URI points at the user's own machine: a native client's listener. */
export function isLoopbackRedirect(uri: string): boolean {
  const url = parse(uri);
  return url !== undefined && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * Whether a redirect URI given with an authorization request matches a registered one. Both are read by the
 * WHATWG URL parser (as browsers read them) and compared in that normalised form: the same scheme, host, port,
 * path and query, except that a loopback http URI matches on any port (RFC 8252 section 7.3).
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (redirectUriProblem(requested) !== undefined) return false;
  const a = parse(registered);
  const b = parse(requested);
  if (!a || !b) return false;
  if (a.href === b.href) return true;
  const loopback = a.protocol === 'http:' && LOOPBACK_HOSTS.has(a.hostname);
  return (
    loopback &&
    b.protocol === 'http:' &&
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search
  );
}

function parse(uri: string): URL | undefined {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}

/** The text between "//" and the first "/", "?" or "#", as written. */
function authorityOf(uri: string): string {
  const start = uri.indexOf('//');
  if (start === -1) return '';
  const rest = uri.slice(start + 2);
  const end = rest.search(/[/?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

/** Longest redirect URI accepted, in characters: enough for any real callback, bounded for storage and parsing. */
export const MAX_REDIRECT_URI_LENGTH = 2000;

const HTTP = 'http://';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Why a redirect URI cannot be registered, or undefined when it can: https, or http on a loopback host (RFC 8252
 * section 7.3, for native clients listening on a local port); no fragment (RFC 6749 section 3.1.2) and no
 * user information.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not contain a fragment';
  if (url.username !== '' || url.password !== '') return 'must not contain user information';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'must use https, or http on a loopback host (127.0.0.1, [::1] or localhost)';
}

/**
 * Whether a redirect URI given with an authorization request matches a registered one: exactly, except that a
 * loopback http URI matches on any port (RFC 8252 section 7.3), the rest (host, path, query) still exactly.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const a = loopbackWithoutPort(registered);
  const b = loopbackWithoutPort(requested);
  return a !== undefined && a === b;
}

/** The URI with its port removed, when it is an http loopback URI; undefined otherwise. */
function loopbackWithoutPort(uri: string): string | undefined {
  if (!uri.startsWith(HTTP)) return undefined;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (!LOOPBACK_HOSTS.has(url.hostname) || url.username !== '' || url.password !== '' || uri.includes('#')) {
    return undefined;
  }
  // Compared as written after the authority, so "/cb" and "/cb/" or a different query never match.
  const authorityEnd = uri.slice(HTTP.length).search(/[/?]/);
  const rest = authorityEnd === -1 ? '' : uri.slice(HTTP.length + authorityEnd);
  return `${HTTP}${url.hostname}${rest}`;
}

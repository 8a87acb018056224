/** Hosts collected from one value at most; the rest are not looked for. */
const MAX_HOSTS = 1_000;
/** Values visited at most. */
const MAX_NODES = 100_000;
/** scheme://[userinfo@]host: linear, every part bounded. */
const URL_HOST = /\b[a-z][a-z0-9+.-]{0,20}:\/\/(?:[^\s/@?#]{0,256}@)?(\[[0-9a-f:.]{2,45}\]|[a-z0-9.-]{1,253})/gi;

/** Every URL host (lowercase, without port) in the strings of a value, at any depth, capped. */
export function urlHostsIn(value: unknown): string[] {
  const hosts = new Set<string>();
  const stack = [value];
  let visited = 0;
  while (stack.length > 0 && visited < MAX_NODES && hosts.size < MAX_HOSTS) {
    const current = stack.pop();
    visited += 1;
    if (typeof current === 'string') {
      URL_HOST.lastIndex = 0;
      for (let match = URL_HOST.exec(current); match && hosts.size < MAX_HOSTS; match = URL_HOST.exec(current))
        hosts.add(match[1].toLowerCase().replace(/\.$/, ''));
    } else if (current instanceof Map) {
      for (const child of current.values()) stack.push(child);
    } else if (current && typeof current === 'object') {
      for (const child of Object.values(current)) stack.push(child);
    }
  }
  return [...hosts];
}

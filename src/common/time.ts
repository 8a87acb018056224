/** OpenAI-shaped objects carry times as integer Unix seconds. */
export function unixSeconds(date: Date): number;
export function unixSeconds(date: Date | null | undefined): number | null;
export function unixSeconds(date: Date | null | undefined): number | null {
  return date ? Math.floor(date.getTime() / 1000) : null;
}

/** Toolgate's own management API (catalog, sources, audit, keys, credentials, tenants) carries ISO 8601 UTC strings. */
export function isoTime(date: Date): string;
export function isoTime(date: Date | null | undefined): string | null;
export function isoTime(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}

/** OpenAI-shaped objects carry times as integer Unix seconds. */
export function unixSeconds(date: Date): number;
export function unixSeconds(date: Date | null | undefined): number | null;
export function unixSeconds(date: Date | null | undefined): number | null {
  return date ? Math.floor(date.getTime() / 1000) : null;
}

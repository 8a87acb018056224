import { distance } from 'fastest-levenshtein';

/**
 * The known names closest to an unknown one: small edit distance, or one containing the
 * other ("search" -> "web_search"), best first.
 */
export function closestNames(unknown: string, known: string[], limit = 3): string[] {
  const wanted = unknown.toLowerCase();
  const tolerance = Math.max(2, Math.floor(wanted.length / 3));
  return known
    .map((name) => {
      const candidate = name.toLowerCase();
      const contains = candidate.includes(wanted) || wanted.includes(candidate);
      return { name, score: contains ? 0.5 : distance(wanted, candidate) };
    })
    .filter((entry) => entry.score <= tolerance)
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((entry) => entry.name);
}

export function unknownToolMessage(name: string, known: string[]): string {
  const suggestions = closestNames(name, known);
  if (suggestions.length > 0)
    return `Unknown tool '${name}'. Did you mean ${suggestions.map((s) => `'${s}'`).join(', ')}?`;
  if (known.length === 0) return `Unknown tool '${name}'. No tools are available to this caller.`;
  return `Unknown tool '${name}'. Available tools: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', ...' : ''}`;
}

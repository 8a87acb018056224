import { distance } from 'fastest-levenshtein';
import type { Config } from '../../config/config.schema';
import { disabledProviderOf } from '../builtins/builtin-providers';

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

/**
 * Why `name` answers nothing, with the caller's closest names (`known`: tools the caller may see, never
 * anyone else's). A built-in switched off by config says so and how to switch it on: its name is public.
 */
export function unknownToolMessage(name: string, known: string[], config: Config): string {
  const disabled = disabledProviderOf(config, name);
  if (disabled)
    return (
      `Unknown tool '${name}': it is a built-in tool that is disabled on this server. An operator enables it ` +
      `with builtins.${disabled.name}.enabled: true and its other builtins.${disabled.name}.* settings ` +
      `(see config.example.yaml).`
    );
  const suggestions = closestNames(name, known);
  if (suggestions.length > 0)
    return `Unknown tool '${name}'. Did you mean ${suggestions.map((s) => `'${s}'`).join(', ')}?`;
  if (known.length === 0) return `Unknown tool '${name}'. No tools are available to this caller.`;
  return `Unknown tool '${name}'. Available tools: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', ...' : ''}`;
}

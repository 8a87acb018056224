import { createHash } from 'node:crypto';
import { TOOL_NAME_PATTERN } from '../catalog/catalog.types';

/**
 * The catalog (and served) name of a discovered tool: `<source>-<tool>`, lowercased, with every run of
 * characters outside [a-z0-9] turned into "-". The source prefix keeps names from different servers
 * apart; when two tools of one server normalize to the same name, or the name is too long, a short hash
 * of the original tool name is appended. `source.tool_name` keeps the name the server knows.
 */
export function catalogName(sourceName: string, toolName: string, taken: ReadonlySet<string> = new Set()): string {
  const base = `${sourceName}-${toolName}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const suffix = createHash('sha256').update(toolName).digest('hex').slice(0, 6);
  let name = base.length <= 64 ? base : `${base.slice(0, 57).replace(/-+$/, '')}-${suffix}`;
  if (taken.has(name) || !TOOL_NAME_PATTERN.test(name)) name = `${base.slice(0, 57).replace(/-+$/, '')}-${suffix}`;
  return name;
}

import { createHash } from 'node:crypto';
import { TOOL_NAME_PATTERN } from '../catalog/catalog.types';
import { RESERVED_TOOL_NAMES } from '../reserved-tool-names';

/** How a source's tools are named in the catalog (and served): `<source>-<tool>`, or the server's own name. */
export const TOOL_NAMINGS = ['prefixed', 'upstream'] as const;
export type ToolNaming = (typeof TOOL_NAMINGS)[number];

/**
 * A tool served under its server's name must be a valid OpenAI function name (`^[a-zA-Z0-9_-]{1,64}$`), which
 * is also within the MCP tool-name rules (letters, digits, `_`, `-`, `.`; 1-128), so every client can call it.
 */
export const UPSTREAM_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Names in the catalog, compared without case: two tools differing only in case would confuse callers. */
export class TakenNames {
  private readonly byFolded = new Map<string, string>();

  constructor(names: Iterable<string>) {
    for (const name of names) this.add(name);
  }

  has(name: string): boolean {
    return this.byFolded.has(name.toLowerCase());
  }

  /** The catalog name that holds `name` (ignoring case), if any. */
  holder(name: string): string | undefined {
    return this.byFolded.get(name.toLowerCase());
  }

  add(name: string): void {
    this.byFolded.set(name.toLowerCase(), name);
  }

  delete(name: string): void {
    if (this.holder(name) === name) this.byFolded.delete(name.toLowerCase());
  }
}

/**
 * The catalog (and served) name of a discovered tool: `<source>-<tool>`, lowercased, with every run of
 * characters outside [a-z0-9] turned into "-". The source prefix keeps names from different servers
 * apart; when two tools of one server normalize to the same name, or the name is too long, a short hash
 * of the original tool name is appended. `source.tool_name` keeps the name the server knows.
 */
export function catalogName(
  sourceName: string,
  toolName: string,
  taken: { has(name: string): boolean } = new Set(),
): string {
  const base = `${sourceName}-${toolName}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const suffix = createHash('sha256').update(toolName).digest('hex').slice(0, 6);
  let name = base.length <= 64 ? base : `${base.slice(0, 57).replace(/-+$/, '')}-${suffix}`;
  if (taken.has(name) || !TOOL_NAME_PATTERN.test(name)) name = `${base.slice(0, 57).replace(/-+$/, '')}-${suffix}`;
  return name;
}

/** The name a discovered tool gets, and why it is not its server's own name when that was asked for. */
export interface ServedName {
  name: string;
  conflict?: string;
}

/**
 * The name of a discovered tool under its source's naming. `current` is the name its catalog entry has now
 * (undefined for a new tool), so a refresh renames an entry only when the naming or a collision changed:
 * - `prefixed`: a prefixed entry keeps its name; one that had the server's name takes the prefixed one.
 * - `upstream`: the server's own name, unless it is not a valid served name, is reserved (meta-tools,
 *   built-ins) or is held by another catalog entry (any tool, of any source or tenant, ignoring case).
 *   Then the tool stays (or becomes) prefixed, with the reason: it never shadows another tool, and it takes
 *   its own name on the refresh after the other one is gone.
 */
export function servedName(
  sourceName: string,
  toolName: string,
  naming: ToolNaming,
  current: string | undefined,
  taken: TakenNames,
): ServedName {
  // A prefixed name always differs from the server's name: it starts with the source's name and "-".
  const prefixed = () =>
    current !== undefined && current !== toolName ? current : catalogName(sourceName, toolName, taken);
  if (naming === 'prefixed') return { name: prefixed() };
  const conflict = upstreamNameConflict(toolName, current, taken);
  return conflict ? { name: prefixed(), conflict } : { name: toolName };
}

function upstreamNameConflict(toolName: string, current: string | undefined, taken: TakenNames): string | undefined {
  if (!UPSTREAM_TOOL_NAME.test(toolName))
    return 'its name is not a valid served tool name (1-64 letters, digits, "_" or "-")';
  if (RESERVED_TOOL_NAMES.has(toolName.toLowerCase()))
    return `the name '${toolName}' is reserved for a built-in tool or a gateway meta-tool`;
  const holder = taken.holder(toolName);
  if (holder !== undefined && holder !== current) return `the name '${toolName}' is taken by catalog tool '${holder}'`;
  return undefined;
}

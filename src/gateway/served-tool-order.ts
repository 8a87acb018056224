/**
 * The order /mcp lists tools in: by code point, so every replica, locale and ICU build pages through the
 * same sequence (localeCompare may differ between them, and a cursor is an offset into this order).
 * Names need no shortening here: catalog names are unique and at most 64 characters by construction
 * (TOOL_NAME_PATTERN, and mcp-tool-names.ts for discovered tools).
 */
export function byServedName(a: { name: string }, b: { name: string }): number {
  if (a.name === b.name) return 0;
  return a.name < b.name ? -1 : 1;
}

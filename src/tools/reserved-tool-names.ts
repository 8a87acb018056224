import { BUILTIN_PROVIDERS } from './builtins/builtin-providers';

/** The gateway's meta-tools (src/gateway/meta-tools.ts), listed by /mcp when a caller's set is over its budget. */
export const SEARCH_TOOLS = 'search_tools';
export const CALL_TOOL = 'call_tool';

/**
 * Names no discovered tool may be served under: the meta-tools (a tools/call of those names means the
 * meta-tool) and every built-in tool, enabled here or not (a catalog entry of a built-in's name shadows the
 * built-in once it is switched on). Kept here, beside both the gateway and the MCP sources, so the two agree.
 */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([
  SEARCH_TOOLS,
  CALL_TOOL,
  ...BUILTIN_PROVIDERS.flatMap((provider) => provider.tools),
]);

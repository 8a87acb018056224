import type { ToolSource } from './catalog.types';

interface CatalogTool {
  name: string;
  source: ToolSource;
}

/**
 * The catalog tools whose names a tool's name is compared with for impersonation: every other tool except those
 * the same MCP server serves. A server cannot impersonate its own tools (it answers for both), and its siblings
 * ("show_gateway" and "show_gateways") are its API, not look-alikes.
 */
export function impersonationPeers(tool: CatalogTool, catalog: Iterable<CatalogTool>): string[] {
  const server = tool.source.type === 'mcp' ? tool.source.server_name : undefined;
  return toolsOutsideServer(server, catalog).filter((name) => name !== tool.name);
}

/** The names of the catalog tools the MCP server `server` does not serve (all of them without one). */
export function toolsOutsideServer(server: string | undefined, catalog: Iterable<CatalogTool>): string[] {
  const names: string[] = [];
  for (const tool of catalog)
    if (!server || tool.source.type !== 'mcp' || tool.source.server_name !== server) names.push(tool.name);
  return names;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogName } from '../../src/tools/mcp/mcp-tool-names';

/** A tool as captured from a real MCP server (test/fixtures/auto-review/benign.json). */
interface CapturedTool {
  source: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface CatalogTool {
  /** The catalog name, `<server>-<tool>` as discovery names it. */
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

const CAPTURED = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'auto-review', 'benign.json');

/**
 * The real tools of the auto-review fixture as a catalog: each named as discovery would name it from a
 * short server name, duplicates (the same server captured twice, two servers with one tool name) dropped.
 */
export function toolSearchCatalog(): CatalogTool[] {
  const captured = JSON.parse(readFileSync(CAPTURED, 'utf8')) as CapturedTool[];
  const taken = new Set<string>();
  const catalog: CatalogTool[] = [];
  for (const tool of captured) {
    const name = catalogName(serverName(tool.source), tool.name);
    if (taken.has(name)) continue;
    taken.add(name);
    catalog.push({ name, description: tool.description, schema: tool.inputSchema });
  }
  return catalog;
}

/** "npm:@modelcontextprotocol/server-github@2025.4.8" -> "github"; "npm:@sentry/mcp-server@0.36.0" -> "sentry". */
export function serverName(source: string): string {
  const spec = source.replace(/^[a-z]+:/, '').split(' ')[0];
  const [scope, pkg] = spec.startsWith('@') ? spec.slice(1).split('/') : [undefined, spec.split('/').pop()!];
  const bare = pkg.replace(/@[^@]*$/, '');
  if ((bare === 'mcp' || bare === 'mcp-server') && scope) return scope.replace(/-ai$/, '');
  return bare.replace(/^(mcp-server-|server-|mcp-)/, '').replace(/(-mcp-server|-mcp)$/, '');
}

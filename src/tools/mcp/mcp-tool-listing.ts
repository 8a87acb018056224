import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { type Tool, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { storableText } from '../../common/json-depth';
import { mcpToolSchema } from '../mcp-tool-schema';

/** A page of tools/list with each tool still unchecked: one malformed tool must not cost the server's others. */
const ListToolsPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** A server's tool left out of the catalog, and why. */
export interface RejectedTool {
  /** The tool's name on the server. */
  tool: string;
  /** The offending field of the MCP tool: description, input_schema or output_schema, with a JSON path. */
  param: string;
  message: string;
}

/**
 * One page of a server's tools. The SDK's `listTools` refuses a whole page for one tool it cannot parse;
 * this reads the page as a list and leaves each tool to `offeredTool`.
 */
export async function listToolsPage(
  client: Client,
  cursor: string | undefined,
  options: RequestOptions,
): Promise<{ tools: unknown[]; nextCursor?: string }> {
  return client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListToolsPage, options);
}

/**
 * A server's tool as the catalog takes it: its schemas in MCP's shape (normalised where that changes nothing
 * they accept) and the whole definition as the official SDK parses it, so that serving it can never fail a
 * client's tools/list; otherwise the field at fault.
 */
export function offeredTool(offered: unknown): { tool: Tool } | { rejected: RejectedTool } {
  const raw = (typeof offered === 'object' && offered !== null ? offered : {}) as Record<string, unknown>;
  // Shown and kept in the source's discovery error: repaired so that it can be stored.
  const name = typeof raw.name === 'string' ? storableText(raw.name.slice(0, 256)) : '(unnamed)';
  const schemas: Record<string, unknown> = {};
  for (const [field, param] of [
    ['inputSchema', 'input_schema'],
    ['outputSchema', 'output_schema'],
  ] as const) {
    if (raw[field] === undefined && field === 'outputSchema') continue;
    const checked = mcpToolSchema(raw[field]);
    if ('problem' in checked) {
      const at = `${param}${checked.problem.path.slice(1)}`;
      return { rejected: { tool: name, param: at, message: `${at} ${checked.problem.message}` } };
    }
    schemas[field] = checked.schema;
  }
  const parsed = ToolSchema.safeParse({ ...raw, ...schemas });
  if (parsed.success) return { tool: parsed.data };
  const issue = parsed.error.issues[0];
  const param = issue.path.map(String).join('.') || 'tool';
  return { rejected: { tool: name, param, message: `${param}: ${issue.message}` } };
}

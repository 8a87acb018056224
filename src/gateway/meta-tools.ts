import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { argumentsJsonSchema } from '../tools/tool-arguments';
import { CALL_TOOL, SEARCH_TOOLS } from '../tools/reserved-tool-names';
import { callToolSchema, searchToolsSchema } from './meta-tool-arguments';

/**
 * The two tools /mcp lists instead of a caller's effective set when that set is larger than
 * gateway.max_listed_tools (clients cap how many tools they take: Cursor about 40, VS Code 128).
 * While they are listed, a tools/call of either name means the meta-tool; a catalog tool of the same
 * name is still reachable through call_tool, which always dispatches to the catalog.
 */
export { CALL_TOOL, SEARCH_TOOLS };

const SEARCH_TOOLS_INPUT = argumentsJsonSchema(searchToolsSchema) as Tool['inputSchema'];
const CALL_TOOL_INPUT = argumentsJsonSchema(callToolSchema) as Tool['inputSchema'];

export function metaTools(available: number): Tool[] {
  return [
    {
      name: SEARCH_TOOLS,
      description:
        `Search the ${available} tools available to you and get their definitions (name, description, input schema). ` +
        'Describe what you want to do in plain words; the best matches come first. ' +
        `Then run one with ${CALL_TOOL}, or call it directly by its name.`,
      inputSchema: SEARCH_TOOLS_INPUT,
      outputSchema: {
        type: 'object',
        properties: {
          tools: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                description: { type: 'string' },
                inputSchema: { type: 'object' },
              },
              required: ['name', 'inputSchema'],
            },
          },
        },
        required: ['tools'],
      },
      annotations: { title: 'Search tools', readOnlyHint: true, openWorldHint: false },
    },
    {
      name: CALL_TOOL,
      description: `Run a tool found with ${SEARCH_TOOLS}: give its exact name and its arguments.`,
      inputSchema: CALL_TOOL_INPUT,
      annotations: { title: 'Call a tool' },
    },
  ];
}

import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * The two tools /mcp lists instead of a caller's effective set when that set is larger than
 * gateway.max_listed_tools (clients cap how many tools they take: Cursor about 40, VS Code 128).
 * While they are listed, a tools/call of either name means the meta-tool; a catalog tool of the same
 * name is still reachable through call_tool, which always dispatches to the catalog.
 */
export const SEARCH_TOOLS = 'search_tools';
export const CALL_TOOL = 'call_tool';

export const MAX_QUERY_CHARS = 1000;
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;

export function metaTools(available: number): Tool[] {
  return [
    {
      name: SEARCH_TOOLS,
      description:
        `Search the ${available} tools available to you and get their definitions (name, description, input schema). ` +
        'Describe what you want to do in plain words; the best matches come first. ' +
        `Then run one with ${CALL_TOOL}, or call it directly by its name.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            minLength: 1,
            maxLength: MAX_QUERY_CHARS,
            description: 'What the tool should do, e.g. "open a pull request" or "current weather in a city".',
          },
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_SEARCH_LIMIT,
            default: DEFAULT_SEARCH_LIMIT,
            description: 'How many tools to return at most.',
          },
        },
        required: ['query'],
        additionalProperties: false,
      },
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
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 256, description: 'The tool name search_tools returned.' },
          arguments: { type: 'object', description: "The tool's arguments, matching its input schema." },
        },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { title: 'Call a tool' },
    },
  ];
}

import { DEFAULT_SEARCH_LIMIT, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT } from './meta-tools';

export interface SearchToolsArguments {
  query: string;
  limit: number;
}

export interface CallToolArguments {
  name: string;
  /** An object, or a JSON string as models produce them: the dispatcher parses and validates either. */
  arguments: Record<string, unknown> | string;
}

/** search_tools' arguments, or the message that says what is wrong with them. */
export function searchToolsArguments(args: Record<string, unknown>): SearchToolsArguments | string {
  const extra = Object.keys(args).find((key) => key !== 'query' && key !== 'limit');
  if (extra !== undefined) return `search_tools takes query and limit, not '${extra.slice(0, 64)}'`;
  const { query, limit = DEFAULT_SEARCH_LIMIT } = args;
  if (typeof query !== 'string' || query.trim() === '') return 'search_tools needs query: a non-empty string';
  if (query.length > MAX_QUERY_CHARS) return `query must be at most ${MAX_QUERY_CHARS} characters`;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)
    return `limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`;
  return { query, limit };
}

/** call_tool's arguments, or the message that says what is wrong with them. */
export function callToolArguments(args: Record<string, unknown>): CallToolArguments | string {
  const extra = Object.keys(args).find((key) => key !== 'name' && key !== 'arguments');
  if (extra !== undefined)
    return `call_tool takes name and arguments, not '${extra.slice(0, 64)}': put the tool's own arguments in arguments`;
  const { name, arguments: toolArguments = {} } = args;
  if (typeof name !== 'string' || name === '' || name.length > 256)
    return 'call_tool needs name: the name of a tool found with search_tools';
  if (typeof toolArguments === 'string') return { name, arguments: toolArguments };
  if (toolArguments === null || typeof toolArguments !== 'object' || Array.isArray(toolArguments))
    return 'call_tool arguments must be an object';
  return { name, arguments: toolArguments as Record<string, unknown> };
}

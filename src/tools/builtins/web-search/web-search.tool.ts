import type { ToolDefinition } from '../../tool-executor';
import { BACKEND_NAMES } from './search-backends';
import { MAX_RESULTS_CAP } from './web-search.config';

export const WEB_SEARCH_TOOL = 'web_search';

/** Longest accepted query; Brave allows 400 characters, and longer queries search badly everywhere. */
export const MAX_QUERY_CHARS = 400;

/** The tool as agents see it: strict arguments and a declared, structured result. */
export function webSearchToolDefinition(defaultMaxResults: number): ToolDefinition {
  return {
    name: WEB_SEARCH_TOOL,
    description:
      'Search the web. Returns the top results as {title, url, snippet} objects, best first, for the agent ' +
      'to cite or to open. Write the query as you would type it into a search engine.',
    parameters: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_QUERY_CHARS,
          pattern: '\\S',
          description: 'The search query, e.g. "postgres advisory lock timeout".',
        },
        max_results: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_RESULTS_CAP,
          description: `How many results to return at most (default ${defaultMaxResults}).`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    returns: {
      type: 'object',
      properties: {
        results: {
          type: 'array',
          maxItems: MAX_RESULTS_CAP,
          items: {
            type: 'object',
            properties: {
              title: { type: 'string' },
              url: { type: 'string', pattern: '^https?://' },
              snippet: { type: 'string' },
            },
            required: ['title', 'url', 'snippet'],
            additionalProperties: false,
          },
        },
        count: { type: 'integer', minimum: 0, maximum: MAX_RESULTS_CAP },
        backend: { type: 'string', enum: [...BACKEND_NAMES], description: 'The search service that answered.' },
      },
      required: ['results', 'count', 'backend'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
  };
}

export interface WebSearchArguments {
  query: string;
  max_results?: number;
}

/**
 * Checks the arguments again (the dispatcher validates against the schema first, but the provider does
 * not rely on any one caller) and normalizes the query's whitespace.
 */
export function parseWebSearchArguments(raw: unknown): WebSearchArguments | { problem: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { problem: 'arguments must be an object' };
  const { query, max_results: maxResults, ...rest } = raw as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return { problem: `$.${unknown[0]} is not an allowed property` };
  if (typeof query !== 'string') return { problem: '$.query must be a string' };
  const normalized = query.replace(/\s+/g, ' ').trim();
  if (!normalized) return { problem: '$.query must not be empty' };
  if (query.length > MAX_QUERY_CHARS) return { problem: `$.query must be at most ${MAX_QUERY_CHARS} characters` };
  if (maxResults === undefined) return { query: normalized };
  if (
    typeof maxResults !== 'number' ||
    !Number.isInteger(maxResults) ||
    maxResults < 1 ||
    maxResults > MAX_RESULTS_CAP
  ) {
    return { problem: `$.max_results must be an integer from 1 to ${MAX_RESULTS_CAP}` };
  }
  return { query: normalized, max_results: maxResults };
}

import { z } from 'zod';
import { argumentsJsonSchema, parseArguments } from '../../tool-arguments';
import type { ToolDefinition } from '../../tool-executor';
import { BACKEND_NAMES } from './search-backends';
import { MAX_RESULTS_CAP } from './web-search.config';

export const WEB_SEARCH_TOOL = 'web_search';

/** Longest accepted query; Brave allows 400 characters, and longer queries search badly everywhere. */
export const MAX_QUERY_CHARS = 400;

/** The arguments; `defaultMaxResults` only enters the description agents read. */
export function webSearchArgumentsSchema(defaultMaxResults: number) {
  return z.strictObject({
    query: z
      .string()
      .min(1)
      .max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`)
      .regex(/\S/, 'must not be empty')
      .describe('The search query, e.g. "postgres advisory lock timeout".'),
    max_results: z
      .int(`must be an integer from 1 to ${MAX_RESULTS_CAP}`)
      .min(1, `must be an integer from 1 to ${MAX_RESULTS_CAP}`)
      .max(MAX_RESULTS_CAP, `must be an integer from 1 to ${MAX_RESULTS_CAP}`)
      .optional()
      .describe(`How many results to return at most (default ${defaultMaxResults}).`),
  });
}

export type WebSearchArgumentsSchema = ReturnType<typeof webSearchArgumentsSchema>;
export type WebSearchArguments = z.output<WebSearchArgumentsSchema>;

/** The tool as agents see it: strict arguments and a declared, structured result. */
export function webSearchToolDefinition(schema: WebSearchArgumentsSchema): ToolDefinition {
  return {
    name: WEB_SEARCH_TOOL,
    description:
      'Search the web. Returns the top results as {title, url, snippet} objects, best first, for the agent ' +
      'to cite or to open. Write the query as you would type it into a search engine.',
    parameters: argumentsJsonSchema(schema),
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

/** Parses the arguments with the schema they are published from, and normalizes the query's whitespace. */
export function parseWebSearchArguments(
  schema: WebSearchArgumentsSchema,
  raw: unknown,
): WebSearchArguments | { problem: string } {
  const args = parseArguments(schema, raw);
  if ('problem' in args) return args;
  return { ...args, query: args.query.replace(/\s+/g, ' ').trim() };
}

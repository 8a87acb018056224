import type { ToolDefinition } from '../../tool-executor';
import { MAX_NUM_RESULTS_CAP } from './file-search.config';
import { COMPARISON_TYPES, COMPOUND_TYPES } from './search/filters';

export const FILE_SEARCH_TOOL = 'file_search';
const MAX_QUERY_CHARS = 4096;

const scalar = { type: ['string', 'number', 'boolean'] };

/** The tool as agents see it: arguments with OpenAI's filter grammar, and structured results. */
export function fileSearchToolDefinition(defaultMaxResults: number): ToolDefinition {
  return {
    name: FILE_SEARCH_TOOL,
    description:
      'Search uploaded files for relevant information. Returns the most relevant passages as ' +
      '{file_id, filename, score, text, attributes}, best first. Ask in natural language or with keywords.',
    parameters: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_QUERY_CHARS,
          pattern: '\\S',
          description: 'What to look for.',
        },
        vector_store_ids: {
          type: 'array',
          minItems: 1,
          maxItems: 10,
          items: { type: 'string', pattern: '^vs_' },
          description: 'The vector stores to search; default: those configured for the caller.',
        },
        max_num_results: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_NUM_RESULTS_CAP,
          description: `How many passages to return at most (default ${defaultMaxResults}).`,
        },
        filters: { $ref: '#/definitions/filter' },
      },
      required: ['query'],
      additionalProperties: false,
      definitions: {
        filter: {
          description: 'A comparison on a file attribute, or and/or of filters.',
          oneOf: [
            {
              type: 'object',
              properties: {
                type: { enum: [...COMPARISON_TYPES] },
                key: { type: 'string', minLength: 1, maxLength: 64 },
                value: { anyOf: [scalar, { type: 'array', items: scalar, minItems: 1 }] },
              },
              required: ['type', 'key', 'value'],
              additionalProperties: false,
            },
            {
              type: 'object',
              properties: {
                type: { enum: [...COMPOUND_TYPES] },
                filters: { type: 'array', minItems: 1, items: { $ref: '#/definitions/filter' } },
              },
              required: ['type', 'filters'],
              additionalProperties: false,
            },
          ],
        },
      },
    },
    returns: {
      type: 'object',
      properties: {
        results: {
          type: 'array',
          maxItems: MAX_NUM_RESULTS_CAP,
          items: {
            type: 'object',
            properties: {
              file_id: { type: 'string' },
              filename: { type: 'string' },
              score: { type: 'number', minimum: 0, maximum: 1 },
              text: { type: 'string' },
              attributes: { type: ['object', 'null'] },
            },
            required: ['file_id', 'filename', 'score', 'text', 'attributes'],
            additionalProperties: false,
          },
        },
        vector_store_ids: { type: 'array', items: { type: 'string' } },
        search_mode: { enum: ['hybrid', 'full_text'] },
      },
      required: ['results', 'vector_store_ids', 'search_mode'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
}

export interface FileSearchArguments {
  query: string;
  vector_store_ids?: string[];
  max_num_results?: number;
  filters?: unknown;
}

/** Checks the arguments again: the provider does not rely on any one caller having validated them. */
export function parseFileSearchArguments(raw: unknown): FileSearchArguments | { problem: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { problem: 'arguments must be an object' };
  const { query, vector_store_ids: ids, max_num_results: max, filters, ...rest } = raw as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return { problem: `$.${unknown[0]} is not an allowed property` };
  if (typeof query !== 'string' || !/\S/.test(query) || query.length > MAX_QUERY_CHARS) {
    return { problem: `$.query must be a non-empty string of at most ${MAX_QUERY_CHARS} characters` };
  }
  if (ids !== undefined && (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string'))) {
    return { problem: '$.vector_store_ids must be a non-empty array of vector store ids' };
  }
  if (
    max !== undefined &&
    (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > MAX_NUM_RESULTS_CAP)
  ) {
    return { problem: `$.max_num_results must be an integer from 1 to ${MAX_NUM_RESULTS_CAP}` };
  }
  return { query, vector_store_ids: ids as string[] | undefined, max_num_results: max as number | undefined, filters };
}

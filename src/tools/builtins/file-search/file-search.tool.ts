import { z } from 'zod';
import { argumentsJsonSchema, parseArguments } from '../../tool-arguments';
import type { ToolDefinition } from '../../tool-executor';
import { MAX_NUM_RESULTS_CAP } from './file-search.config';
import { COMPARISON_TYPES, COMPOUND_TYPES } from './search/filters';

export const FILE_SEARCH_TOOL = 'file_search';
const MAX_QUERY_CHARS = 4096;

const scalar = { type: ['string', 'number', 'boolean'] };

/** OpenAI's filter grammar, published as JSON Schema: search/filters parses it and explains a bad filter best. */
const FILTER_SCHEMA = {
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
};

/** The arguments; `defaultMaxResults` only enters the description agents read. */
export function fileSearchArgumentsSchema(defaultMaxResults: number) {
  const queryProblem = `must be a non-empty string of at most ${MAX_QUERY_CHARS} characters`;
  const maxProblem = `must be an integer from 1 to ${MAX_NUM_RESULTS_CAP}`;
  return z
    .strictObject({
      query: z
        .string(queryProblem)
        .min(1, queryProblem)
        .max(MAX_QUERY_CHARS, queryProblem)
        .regex(/\S/, queryProblem)
        .describe('What to look for.'),
      vector_store_ids: z
        .array(z.string().regex(/^vs_/, 'must be vector store ids'))
        .min(1, 'must be a non-empty array of vector store ids')
        .max(10, 'must name at most 10 vector stores')
        .optional()
        .describe('The vector stores to search; default: those configured for the caller.'),
      max_num_results: z
        .int(maxProblem)
        .min(1, maxProblem)
        .max(MAX_NUM_RESULTS_CAP, maxProblem)
        .optional()
        .describe(`How many passages to return at most (default ${defaultMaxResults}).`),
      filters: z.unknown().optional().meta({ $ref: '#/definitions/filter' }),
    })
    .meta({ definitions: { filter: FILTER_SCHEMA } });
}

export type FileSearchArgumentsSchema = ReturnType<typeof fileSearchArgumentsSchema>;
export type FileSearchArguments = z.output<FileSearchArgumentsSchema>;

/** The tool as agents see it: arguments with OpenAI's filter grammar, and structured results. */
export function fileSearchToolDefinition(schema: FileSearchArgumentsSchema): ToolDefinition {
  return {
    name: FILE_SEARCH_TOOL,
    description:
      'Search uploaded files for relevant information. Returns the most relevant passages as ' +
      '{file_id, filename, score, text, attributes}, best first. Ask in natural language or with keywords.',
    parameters: argumentsJsonSchema(schema),
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

/** Parses the arguments with the schema they are published from. */
export function parseFileSearchArguments(
  schema: FileSearchArgumentsSchema,
  raw: unknown,
): FileSearchArguments | { problem: string } {
  return parseArguments(schema, raw);
}

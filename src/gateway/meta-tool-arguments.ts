import { z } from 'zod';

export const MAX_QUERY_CHARS = 1000;
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;

const QUERY_NEEDED = 'search_tools needs query: a non-empty string';
const LIMIT_RANGE = `limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`;
const NAME_NEEDED = 'call_tool needs name: the name of a tool found with search_tools';

/** search_tools' arguments; its published input schema is derived from this. */
export const searchToolsSchema = z.strictObject({
  query: z
    .string(QUERY_NEEDED)
    .min(1, QUERY_NEEDED)
    .max(MAX_QUERY_CHARS, `query must be at most ${MAX_QUERY_CHARS} characters`)
    .refine((query) => query.trim() !== '', QUERY_NEEDED)
    .describe('What the tool should do, e.g. "open a pull request" or "current weather in a city".'),
  limit: z
    .int(LIMIT_RANGE)
    .min(1, LIMIT_RANGE)
    .max(MAX_SEARCH_LIMIT, LIMIT_RANGE)
    .default(DEFAULT_SEARCH_LIMIT)
    .describe('How many tools to return at most.'),
});

/** call_tool's arguments; its published input schema is derived from this. */
export const callToolSchema = z.strictObject({
  name: z
    .string(NAME_NEEDED)
    .min(1, NAME_NEEDED)
    .max(256, NAME_NEEDED)
    .describe('The tool name search_tools returned.'),
  // Published as an object; a JSON string, as models produce them, is taken too (see CallToolArguments).
  arguments: z
    .unknown()
    .optional()
    .meta({ type: 'object', description: "The tool's arguments, matching its input schema." }),
});

export type SearchToolsArguments = z.output<typeof searchToolsSchema>;

export interface CallToolArguments {
  name: string;
  /** An object, or a JSON string as models produce them: the dispatcher parses and validates either. */
  arguments: Record<string, unknown> | string;
}

/** search_tools' arguments, or the message that says what is wrong with them. */
export function searchToolsArguments(args: Record<string, unknown>): SearchToolsArguments | string {
  const result = searchToolsSchema.safeParse(args);
  if (result.success) return result.data;
  const extra = unknownKey(result.error);
  return extra === undefined ? result.error.issues[0].message : `search_tools takes query and limit, not '${extra}'`;
}

/** call_tool's arguments, or the message that says what is wrong with them. */
export function callToolArguments(args: Record<string, unknown>): CallToolArguments | string {
  const result = callToolSchema.safeParse(args);
  if (!result.success) {
    const extra = unknownKey(result.error);
    if (extra === undefined) return result.error.issues[0].message;
    return `call_tool takes name and arguments, not '${extra}': put the tool's own arguments in arguments`;
  }
  const { name, arguments: toolArguments = {} } = result.data;
  if (typeof toolArguments === 'string') return { name, arguments: toolArguments };
  if (toolArguments === null || typeof toolArguments !== 'object' || Array.isArray(toolArguments))
    return 'call_tool arguments must be an object';
  return { name, arguments: toolArguments as Record<string, unknown> };
}

/** A property the tool does not take, shortened; reported before anything else is wrong. */
function unknownKey(error: z.ZodError): string | undefined {
  const issue = error.issues.find((candidate) => candidate.code === 'unrecognized_keys');
  return issue?.keys[0].slice(0, 64);
}

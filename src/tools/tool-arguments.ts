import { z } from 'zod';

/**
 * A built-in tool's arguments are declared once, as a zod schema: the JSON Schema agents see is derived
 * from it, and the provider parses with it (it does not rely on any one caller having validated them).
 */
export function argumentsJsonSchema(schema: z.ZodType): Record<string, unknown> {
  // Tool definitions carry no `$schema`: draft-07 is implied, and the catalog hashes what it is given.
  // As the caller writes them (`io: input`): a property with a default is optional and shows the default.
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' });
  return parameters;
}

/** The parsed arguments, or the first problem with them, named by its JSON path as the dispatcher does. */
export function parseArguments<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> | { problem: string } {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue.code === 'unrecognized_keys')
    return { problem: `${jsonPath([...issue.path, issue.keys[0]])} is not an allowed property` };
  return { problem: `${jsonPath(issue.path)}: ${issue.message}` };
}

function jsonPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'arguments' : `$.${path.map(String).join('.')}`;
}

import { encodeHeaderValue } from './mcp-2026';

/** RFC 9110 field-name token characters (tchar). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const KEYWORD = 'x-mcp-header';

/** A parameter mirrored into an `Mcp-Param-{name}` header: where its value is in the arguments. */
export interface HeaderParameter {
  name: string;
  path: string[];
}

/**
 * The `x-mcp-header` annotations of a tool's input schema (Streamable HTTP page, "Custom Headers from Tool
 * Parameters"), or why they make the tool invalid: an empty or non-token name, a name used twice (case
 * insensitive), an annotation on a parameter that is not a string, integer or boolean, or one that is not
 * statically reachable from the root through `properties` alone. The walk is iterative and visits each
 * node once (the schema has passed the catalog's size and depth limits before).
 */
export function headerParameters(schema: unknown): { parameters: HeaderParameter[] } | { problem: string } {
  const parameters: HeaderParameter[] = [];
  const seen = new Set<string>();
  // `path` null: below a keyword other than `properties`, where an annotation is not allowed.
  const stack: { node: unknown; path: string[] | null }[] = [{ node: schema, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push({ node: item, path: null });
      continue;
    }
    const record = node as Record<string, unknown>;
    if (Object.hasOwn(record, KEYWORD)) {
      const name = record[KEYWORD];
      const where = path && path.length > 0 ? `'${path.join('.')}'` : 'a place that is not a property';
      if (!path || path.length === 0) return { problem: `${KEYWORD} on ${where}` };
      if (typeof name !== 'string' || !TOKEN.test(name))
        return { problem: `${KEYWORD} of ${where} is not an HTTP header name token` };
      if (seen.has(name.toLowerCase())) return { problem: `${KEYWORD} '${name}' is used twice` };
      if (!['string', 'integer', 'boolean'].includes(record.type as string))
        return { problem: `${KEYWORD} of ${where} is on a parameter that is not a string, integer or boolean` };
      seen.add(name.toLowerCase());
      parameters.push({ name, path });
    }
    for (const [key, value] of Object.entries(record)) {
      if (key === 'properties' && path && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const [property, child] of Object.entries(value)) stack.push({ node: child, path: [...path, property] });
      } else if (key !== KEYWORD) {
        stack.push({ node: value, path: null });
      }
    }
  }
  return { parameters };
}

/**
 * The values a call's `Mcp-Param-*` headers carry, before encoding, by header name: each annotated parameter
 * present in the arguments as a string, a safe integer or a boolean.
 */
export function parameterValues(parameters: HeaderParameter[], args: Record<string, unknown>): Map<string, string> {
  const values = new Map<string, string>();
  for (const { name, path } of parameters) {
    let value: unknown = args;
    for (const key of path) {
      value =
        value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as never)[key] : undefined;
    }
    if (typeof value === 'string') values.set(name, value);
    else if (typeof value === 'boolean' || (typeof value === 'number' && Number.isSafeInteger(value)))
      values.set(name, String(value));
  }
  return values;
}

/** The `Mcp-Param-*` headers of a call: each annotated parameter present in the arguments, encoded. */
export function parameterHeaders(schema: unknown, args: Record<string, unknown>): Record<string, string> {
  const found = headerParameters(schema);
  if ('problem' in found) return {};
  const headers: Record<string, string> = {};
  for (const [name, value] of parameterValues(found.parameters, args))
    headers[`Mcp-Param-${name}`] = encodeHeaderValue(value);
  return headers;
}

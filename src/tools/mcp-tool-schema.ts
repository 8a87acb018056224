import type { SchemaViolation } from '../common/json-schema';
import type { JsonSchema } from './tool-executor';

export type McpToolSchemaCheck = { schema: JsonSchema } | { problem: SchemaViolation };

/**
 * A tool schema in the shape every MCP revision requires of `inputSchema` (and 2025-11-25 of `outputSchema`),
 * which the official SDK's clients check on every tools/list: a JSON object with `type: "object"` at the root,
 * `properties` (if any) an object of schema objects, `required` (if any) a list of names. Below that, any JSON
 * Schema. A schema that only needs spelling out is normalised without changing what it accepts, since tool
 * arguments (and structuredContent) are always JSON objects: a missing `type` becomes "object", a type list
 * that admits "object" becomes "object", and boolean property schemas become their object forms. Anything else
 * is a problem with the JSON path of the keyword. Only the root and its `properties` are read (linear in their
 * count); depth and size are bounded by the callers' checks before this one.
 */
export function mcpToolSchema(schema: unknown): McpToolSchemaCheck {
  if (!isObject(schema)) return problem('$', 'must be a JSON Schema object with type "object"');
  const type = schema.type;
  const typeIsObject = type === undefined || type === 'object' || (Array.isArray(type) && type.includes('object'));
  if (!typeIsObject) return problem('$.type', 'must be "object": tool arguments are always a JSON object');
  const properties = schema.properties;
  let normalisedProperties: Record<string, unknown> | undefined;
  if (properties !== undefined) {
    if (!isObject(properties)) return problem('$.properties', 'must be an object mapping names to schemas');
    for (const [name, property] of Object.entries(properties)) {
      if (typeof property === 'boolean') {
        normalisedProperties ??= { ...properties };
        normalisedProperties[name] = property ? {} : { not: {} };
      } else if (!isObject(property)) {
        return problem(`$.properties.${name}`, 'must be a JSON Schema object');
      }
    }
  }
  const required = schema.required;
  if (required !== undefined && !(Array.isArray(required) && required.every((name) => typeof name === 'string')))
    return problem('$.required', 'must be a list of property names');
  if (type === 'object' && !normalisedProperties) return { schema };
  return {
    schema: { ...schema, type: 'object', ...(normalisedProperties && { properties: normalisedProperties }) },
  };
}

/**
 * The schema in MCP's shape, or undefined. Served definitions go through this, so that no stored row can break
 * a client's tools/list: rows stored before the check above always normalise (their root `type` had to be
 * "object" if present and their `properties` passed the JSON Schema meta-schema).
 */
export function servedMcpToolSchema(schema: JsonSchema): JsonSchema | undefined {
  const checked = mcpToolSchema(schema);
  return 'schema' in checked ? checked.schema : undefined;
}

function problem(path: string, message: string): McpToolSchemaCheck {
  return { problem: { path, message } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

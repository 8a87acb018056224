import type { AppConfig } from '../../config/app-config';

/** A tool's text as offered to the catalog, by an admin or an MCP server. */
export interface OfferedContent {
  description?: string;
  schema?: unknown;
  outputSchema?: unknown;
}

export interface OversizedField {
  /** The request field (or MCP tool field) that is too large. */
  param: 'description' | 'schema' | 'output_schema';
  message: string;
}

/**
 * The first field over `catalog.max_description_length` / `catalog.max_schema_bytes`, or undefined. Checked
 * before anything else reads the content, so the automated review and the schema compiler only ever see
 * bounded input.
 */
export function oversizedField(content: OfferedContent, limits: AppConfig['catalog']): OversizedField | undefined {
  const { max_description_length: maxLength, max_schema_bytes: maxBytes } = limits;
  if (typeof content.description === 'string' && content.description.length > maxLength) {
    return {
      param: 'description',
      message: `description is ${content.description.length} characters long; the limit is ${maxLength} (catalog.max_description_length)`,
    };
  }
  for (const [param, schema] of [
    ['schema', content.schema],
    ['output_schema', content.outputSchema],
  ] as const) {
    if (schema === undefined || schema === null) continue;
    const bytes = Buffer.byteLength(JSON.stringify(schema) ?? '');
    if (bytes > maxBytes) {
      return {
        param,
        message: `${param} is ${bytes} bytes of JSON; the limit is ${maxBytes} (catalog.max_schema_bytes)`,
      };
    }
  }
  return undefined;
}

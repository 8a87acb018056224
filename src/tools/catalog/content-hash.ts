import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal content always hashes (and compares) equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What a reviewer approves: the tool's description, schemas, annotations and permissions. */
export interface ReviewedContent {
  description: string;
  schema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  permissions?: readonly string[];
}

/**
 * The hash a review pins (`definition_hash`). Permissions enter it only when there are some, so that the
 * hashes of tools without permissions (every MCP tool) stay what they were before permissions were pinned.
 */
export function contentHash(content: ReviewedContent): string {
  const pinned = {
    description: content.description,
    schema: content.schema,
    output_schema: content.outputSchema ?? null,
    annotations: content.annotations ?? null,
    ...(content.permissions?.length && { permissions: content.permissions }),
  };
  return createHash('sha256').update(canonical(pinned)).digest('hex');
}

import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ReviewedContent } from '../catalog/content-hash';
import type { ToolEntity } from '../catalog/tool.entity';
import type { ToolDefinition } from '../tool-executor';

/** What a reviewer of an MCP tool sees, read from the server's tools/list entry. */
export function contentOf(tool: Tool): ReviewedContent {
  return {
    description: tool.description ?? tool.title ?? '',
    schema: tool.inputSchema as Record<string, unknown>,
    outputSchema: (tool.outputSchema as Record<string, unknown> | undefined) ?? null,
    annotations: (tool.annotations as Record<string, unknown> | undefined) ?? null,
  };
}

/** The same view of a catalog entry: what its server offered when it was last discovered. */
export function catalogContentOf(entry: ToolEntity): ReviewedContent {
  return {
    description: entry.description,
    schema: entry.schema,
    outputSchema: entry.outputSchema,
    annotations: entry.annotations,
  };
}

/** The same view of the definition a call was authorized with (read from the catalog entry). */
export function definitionContentOf(definition: ToolDefinition): ReviewedContent {
  return {
    description: definition.description,
    schema: definition.parameters,
    outputSchema: definition.outputSchema ?? null,
    annotations: definition.annotations ?? null,
  };
}

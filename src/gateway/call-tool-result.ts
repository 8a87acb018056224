import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCallObject } from '../tools/invocation/tool-call';

/**
 * A dispatcher tool_call as an MCP tool result. Results of MCP tools pass through as the server sent
 * them; other tools' JSON output becomes text content plus structuredContent. Refusals and failures are
 * tool errors (isError) whose text says why, so the model can react.
 */
export function toCallToolResult(toolCall: ToolCallObject): CallToolResult {
  const result = callToolResultOf(toolCall);
  // Output scanning's mark travels in _meta, where MCP clients keep what is about the result, not of it.
  return toolCall.metadata?.injection_suspected
    ? { ...result, _meta: { ...result._meta, injection_suspected: true } }
    : result;
}

function callToolResultOf(toolCall: ToolCallObject): CallToolResult {
  const output = toolCall.output as { content?: unknown; structuredContent?: unknown } | null;
  const isMcpResult = output !== null && typeof output === 'object' && Array.isArray(output.content);
  if (toolCall.status === 'completed') {
    if (isMcpResult) return output as CallToolResult;
    const text = typeof toolCall.output === 'string' ? toolCall.output : JSON.stringify(toolCall.output);
    const structured =
      toolCall.output !== null && typeof toolCall.output === 'object' && !Array.isArray(toolCall.output);
    return {
      content: [{ type: 'text', text }],
      ...(structured && { structuredContent: toolCall.output as Record<string, unknown> }),
    };
  }
  if (isMcpResult && toolCall.status === 'failed' && toolCall.error?.code === 'tool_error')
    return { ...(output as CallToolResult), isError: true };
  return {
    isError: true,
    content: [{ type: 'text', text: `${toolCall.status}: ${toolCall.error?.message ?? 'the call did not complete'}` }],
  };
}

/** A refusal that never became a tool_call (invalid arguments, rate limit) as a tool error. */
export function errorResult(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

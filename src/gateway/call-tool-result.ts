import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AnsweredCall } from '../tools/invocation/call-result';

/**
 * A dispatched call as an MCP tool result. Results of MCP tools pass through as the server sent them
 * (content, structuredContent, _meta); other tools' JSON output becomes text content plus
 * structuredContent. Refusals and failures are tool errors (isError) whose text says why, so the model
 * can react.
 */
export function toCallToolResult(call: AnsweredCall): CallToolResult {
  const result = callToolResultOf(call);
  // Output scanning's mark travels in _meta, where MCP clients keep what is about the result, not of it.
  return call.toolCall.metadata?.injection_suspected
    ? { ...result, _meta: { ...result._meta, injection_suspected: true } }
    : result;
}

function callToolResultOf(call: AnsweredCall): CallToolResult {
  if (call.status === 'completed') {
    if (call.payload.kind === 'mcp') return serverResult(call.payload.result);
    const value = call.payload.value;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    const structured = value !== null && typeof value === 'object' && !Array.isArray(value);
    return {
      content: [{ type: 'text', text }],
      ...(structured && { structuredContent: value as Record<string, unknown> }),
    };
  }
  if (call.status === 'failed' && call.payload?.kind === 'mcp')
    return { ...serverResult(call.payload.result), isError: true };
  const { status, error } = call.toolCall;
  return {
    isError: true,
    content: [{ type: 'text', text: `${status}: ${error?.message ?? 'the call did not complete'}` }],
  };
}

function serverResult({ content, structuredContent, _meta }: CallToolResult): CallToolResult {
  return {
    content,
    ...(structuredContent !== undefined && { structuredContent }),
    ...(_meta !== undefined && { _meta }),
  };
}

/** A refusal that never became a tool_call (invalid arguments, rate limit) as a tool error. */
export function errorResult(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Tracing } from './tracing';

/**
 * Attribute names of tool-call spans. What a span may say about a call: which tool, from which source, for
 * which tenant, and how it ended. Never its arguments, output, credentials or error messages.
 */
export const TOOL_CALL_ATTRIBUTES = {
  tool: 'gen_ai.tool.name',
  source: 'toolgate.tool.source',
  tenant: 'toolgate.tenant_id',
  outcome: 'toolgate.tool_call.outcome',
} as const;

/** The span of one dispatched tool call, from name resolution to the audit record; its outcome is the status. */
export function traceToolCall<T extends { status: string }>(
  tracing: Tracing,
  tenantId: string,
  dispatch: () => Promise<T>,
): Promise<T> {
  if (!tracing.enabled) return dispatch();
  return tracing.inSpan(
    'execute_tool',
    {
      kind: SpanKind.INTERNAL,
      attributes: { [TOOL_CALL_ATTRIBUTES.tenant]: tenantId, 'gen_ai.operation.name': 'execute_tool' },
    },
    async (span) => {
      const result = await dispatch();
      span.setAttribute(TOOL_CALL_ATTRIBUTES.outcome, result.status);
      if (result.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR });
      return result;
    },
  );
}

/** Names the tool-call span once the name has resolved to a catalog tool (an unknown name stays unnamed). */
export function traceResolvedTool(tracing: Tracing, toolName: string, source: string): void {
  if (!tracing.enabled) return;
  tracing.annotate({ [TOOL_CALL_ATTRIBUTES.tool]: toolName, [TOOL_CALL_ATTRIBUTES.source]: source });
}

/** A client span around one turn of the upstream model (one streamed Chat Completions request). */
export function traceModelTurn<T>(tracing: Tracing, model: string, turn: () => Promise<T>): Promise<T> {
  if (!tracing.enabled) return turn();
  return tracing.inSpan(
    `chat ${model}`,
    { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model } },
    turn,
  );
}

/** A client span around one request to an upstream MCP server; `meta` is the trace context for its `_meta`. */
export function traceUpstreamMcpCall<T>(
  tracing: Tracing,
  sourceName: string,
  toolName: string,
  call: (meta: Record<string, string> | undefined) => Promise<T>,
): Promise<T> {
  if (!tracing.enabled) return call(undefined);
  return tracing.inSpan(
    `tools/call ${toolName}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'mcp.method.name': 'tools/call',
        [TOOL_CALL_ATTRIBUTES.tool]: toolName,
        'toolgate.mcp.source': sourceName,
      },
    },
    () => call(tracing.outgoingContext()),
  );
}

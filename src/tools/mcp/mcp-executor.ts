import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppConfig } from '../../config/app-config';
import { traceUpstreamMcpCall } from '../../observability/tracing/tool-call-spans';
import { Tracing } from '../../observability/tracing/tracing';
import { resultText, scanToolOutput } from '../catalog/output-scan';
import { ExecutableTool, Execution, ToolCall, ToolContext, ToolExecutor, ToolExecutorFor } from '../tool-executor';
import { McpClientPool } from './mcp-client-pool';
import { McpMessageTooLargeError } from './mcp-connection';
import { McpDefinitionCheck } from './mcp-definition-check';
import { McpHealth } from './mcp-health';
import { sessionLostBeforeSend } from './mcp-session-lost';
import { McpSourcesService } from './mcp-sources.service';

/** A call not sent because the server no longer offers the approved definition. */
class RefusedCall {
  constructor(readonly refusal: { code: string; message: string }) {}
}

/**
 * Runs catalog tools of MCP sources (`source.type = mcp`) through `tools/call` on a pooled client per (source, tenant
 * credential). The call's AbortSignal cancels the MCP request (the SDK sends notifications/cancelled),
 * MCP progress notifications become ToolContext.progress events, and the result (text, image and
 * resource content, structuredContent, _meta, isError) is carried through faithfully.
 */
@Injectable()
@ToolExecutorFor('mcp')
export class McpExecutor implements ToolExecutor {
  constructor(
    private readonly sources: McpSourcesService,
    private readonly pool: McpClientPool,
    private readonly health: McpHealth,
    private readonly config: AppConfig,
    private readonly definitions: McpDefinitionCheck,
    private readonly tracing: Tracing,
  ) {}

  /** Whether the source is registered is known only by asking the database, at execution. */
  canExecute(): boolean {
    return true;
  }

  async execute(tool: ExecutableTool, call: ToolCall, ctx: ToolContext): Promise<Execution> {
    const sourceName = tool.source.server_name;
    const source = sourceName ? await this.sources.byName(sourceName) : undefined;
    if (!source) {
      const message = `MCP source '${sourceName ?? '?'}' of tool '${call.name}' is not registered`;
      return { isError: true, payload: { kind: 'json', value: { error: { message } } } };
    }
    const credential = ctx.credential?.value;
    const started = performance.now();
    let ok = false;
    try {
      const result = await traceUpstreamMcpCall(this.tracing, source.name, tool.source.tool_name!, (meta) =>
        this.callOnce(source, credential, tool, call, ctx, meta).catch(async (error: unknown) => {
          // Only a request that never reached the tool is sent again: a tool may not be idempotent.
          if (ctx.signal.aborted || !sessionLostBeforeSend(error)) throw error;
          // The server restarted or dropped our session: one fresh connection, then give up.
          await this.pool.discard(source, credential);
          return this.callOnce(source, credential, tool, call, ctx, meta);
        }),
      );
      if (result instanceof McpMessageTooLargeError) {
        return { refusal: { code: result.code, message: `Tool '${call.name}' failed: ${result.message}` } };
      }
      if (result instanceof RefusedCall) {
        // The catalog is behind the server: a refresh records the change (pending review) for everyone.
        this.pool.announceToolListChanged(source);
        ok = true;
        return { refusal: result.refusal };
      }
      ok = !result.isError;
      const scan = this.scan(tool, result);
      if (scan === 'block')
        return {
          // The text itself is not repeated: it is what must not reach the model.
          refusal: {
            code: 'injection_blocked',
            message: `Tool '${call.name}' returned text that reads like instructions addressed to the model; the result was withheld (output_scan: block)`,
          },
        };
      return {
        payload: { kind: 'mcp', result },
        isError: result.isError === true,
        ...(scan === 'flag' && { injectionSuspected: true }),
      };
    } finally {
      if (!ctx.signal.aborted) this.health.recordCall(source.name, ok, performance.now() - started);
    }
  }

  /** What to do with this result: the tool's mode when it reads like injection, or undefined to pass it on. */
  private scan(tool: ExecutableTool, result: CallToolResult): 'flag' | 'block' | undefined {
    const mode = tool.outputScan ?? this.config.catalog.output_scan;
    if (mode === 'off') return undefined;
    const maxChars = this.config.catalog.output_scan_max_chars;
    const sentenceModel = this.config.catalog.review.sentence_model;
    return scanToolOutput(resultText(result, maxChars), maxChars, { sentenceModel }).injectionSuspected
      ? mode
      : undefined;
  }

  private async callOnce(
    source: Parameters<McpClientPool['client']>[0],
    credential: string | undefined,
    tool: ExecutableTool,
    call: ToolCall,
    ctx: ToolContext,
    traceMeta: Record<string, string> | undefined,
  ): Promise<CallToolResult | RefusedCall | McpMessageTooLargeError> {
    const { client, tooLarge } = await this.pool.client(source, credential);
    // An answer over mcp.max_result_bytes closes the connection, which fails the call with an anonymous
    // "Connection closed"; the race keeps the reason.
    const sizeChecked = <T>(pending: Promise<T>) =>
      Promise.race([pending, tooLarge]).catch((error: unknown) => {
        if (error instanceof McpMessageTooLargeError) return error;
        throw error;
      });
    const verdict = await sizeChecked(this.definitions.verify(client, tool, ctx.signal));
    if (verdict instanceof McpMessageTooLargeError) return verdict;
    if (!verdict.ok) return new RefusedCall({ code: verdict.code, message: verdict.message });
    const result = await sizeChecked(
      client.callTool(
        {
          name: tool.source.tool_name!,
          arguments: (call.arguments ?? {}) as Record<string, unknown>,
          // W3C trace context for the upstream server (MCP _meta traceparent/tracestate), when tracing is on.
          ...(traceMeta && { _meta: traceMeta }),
        },
        undefined,
        {
          signal: ctx.signal,
          // The dispatcher owns the deadline (and aborts the signal); the SDK's own default must not cut in first.
          timeout: this.config.tools.max_timeout,
          onprogress: (progress) =>
            ctx.progress({ progress: progress.progress, total: progress.total, message: progress.message }),
        },
      ),
    );
    return result as CallToolResult | McpMessageTooLargeError;
  }
}

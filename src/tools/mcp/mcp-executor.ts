import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppConfig } from '../../config/app-config';
import { traceUpstreamMcpCall } from '../../observability/tracing/tool-call-spans';
import { Tracing } from '../../observability/tracing/tracing';
import { resultText, scanToolOutput } from '../catalog/output-scan';
import { ErrorCodes } from '../../common/mcp-2026';
import { inputUnavailableMessage } from '../client-input';
import {
  ExecutableTool,
  Execution,
  InputRequired,
  ToolCall,
  ToolContext,
  ToolExecutor,
  ToolExecutorFor,
} from '../tool-executor';
import { callModernTool, listModernToolsPage } from './era-2026/modern-tools';
import { ModernUpstream, UpstreamHttpError, UpstreamRpcError } from './era-2026/modern-upstream';
import { parameterHeaders } from '../../common/mcp-param-headers';
import { UpstreamEras } from './era-2026/upstream-eras';
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

/** A 2026-07-28 server asks for the client's input before it finishes the call. */
class AwaitingInput {
  constructor(readonly inputRequired: InputRequired) {}
}

/** What one attempt at the call ended with, in either era. */
type Attempt = CallToolResult | RefusedCall | McpMessageTooLargeError | AwaitingInput;

/**
 * Runs catalog tools of MCP sources (`source.type = mcp`) through `tools/call`: in MCP 2026-07-28 when the source
 * speaks it (era-2026/), otherwise on a pooled SDK client per (source, tenant credential). The call's AbortSignal
 * cancels the MCP request (the SDK sends notifications/cancelled; a 2026-07-28 request's stream is closed),
 * MCP progress notifications become ToolContext.progress events, and the result (text, image and
 * resource content, structuredContent, _meta, isError) is carried through faithfully. A 2026-07-28 server's
 * request for the client's input comes back as `inputRequired`, for the dispatcher to relay or refuse.
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
    private readonly eras: UpstreamEras,
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
        this.callSource(source, credential, tool, call, ctx, meta),
      );
      if (result instanceof AwaitingInput) {
        ok = true;
        return { inputRequired: result.inputRequired };
      }
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

  /** The call in the source's era; a source found to have changed era is probed again, once. */
  private async callSource(
    source: McpSource,
    credential: string | undefined,
    tool: ExecutableTool,
    call: ToolCall,
    ctx: ToolContext,
    traceMeta: Record<string, string> | undefined,
    reprobed = false,
  ): Promise<Attempt> {
    const modern = await this.eras.modern(source, credential);
    if (!modern) return this.callLegacy(source, credential, tool, call, ctx, traceMeta);
    try {
      return await this.callModern(modern, tool, call, ctx, traceMeta);
    } catch (error) {
      // Only a request the server refused unread is sent again: a tool may not be idempotent.
      if (reprobed || ctx.signal.aborted || !eraMismatch(error)) throw error;
      this.eras.forget(source);
      return this.callSource(source, credential, tool, call, ctx, traceMeta, true);
    }
  }

  private callLegacy(
    source: McpSource,
    credential: string | undefined,
    tool: ExecutableTool,
    call: ToolCall,
    ctx: ToolContext,
    traceMeta: Record<string, string> | undefined,
  ): Promise<Attempt> {
    return this.callOnce(source, credential, tool, call, ctx, traceMeta).catch(async (error: unknown) => {
      // Only a request that never reached the tool is sent again: a tool may not be idempotent.
      if (ctx.signal.aborted || !sessionLostBeforeSend(error)) throw error;
      // The server restarted or dropped our session: one fresh connection, then give up.
      await this.pool.discard(source, credential);
      return this.callOnce(source, credential, tool, call, ctx, traceMeta);
    });
  }

  /**
   * tools/call in 2026-07-28: the definition check on the server's current listing, then the call with the
   * caller's capabilities (none unless it can answer input requests), a retry's answers and state, progress
   * asked for with the call id as token, and x-mcp-header parameters mirrored into Mcp-Param-* headers.
   */
  private async callModern(
    upstream: ModernUpstream,
    tool: ExecutableTool,
    call: ToolCall,
    ctx: ToolContext,
    traceMeta: Record<string, string> | undefined,
  ): Promise<Attempt> {
    try {
      const lister = { key: upstream, listPage: listModernToolsPage.bind(undefined, upstream) };
      const verdict = await this.definitions.verify(lister, tool, ctx.signal);
      if (!verdict.ok) return new RefusedCall({ code: verdict.code, message: verdict.message });
      const args = (call.arguments ?? {}) as Record<string, unknown>;
      const answer = await callModernTool(
        upstream,
        {
          name: tool.source.tool_name!,
          arguments: args,
          inputResponses: ctx.input?.responses,
          requestState: ctx.input?.requestState,
        },
        {
          signal: ctx.signal,
          capabilities: ctx.input?.capabilities ?? {},
          meta: { ...traceMeta, progressToken: call.id },
          headers: parameterHeaders(tool.definition.parameters, args),
          onNotification: (method, params) => {
            if (method !== 'notifications/progress' || typeof params.progress !== 'number') return;
            ctx.progress({
              progress: params.progress,
              ...(typeof params.total === 'number' && { total: params.total }),
              ...(typeof params.message === 'string' && { message: params.message }),
            });
          },
        },
      );
      return 'result' in answer ? answer.result : new AwaitingInput(answer.inputRequired);
    } catch (error) {
      if (error instanceof McpMessageTooLargeError) return error;
      if (error instanceof UpstreamRpcError && error.code === ErrorCodes.MissingRequiredClientCapability) {
        const required = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
        const names = required !== null && typeof required === 'object' ? Object.keys(required).slice(0, 8) : [];
        return new RefusedCall({
          code: 'input_unavailable',
          message: inputUnavailableMessage(call.name, names, ctx.input !== undefined),
        });
      }
      throw error;
    }
  }

  private async callOnce(
    source: McpSource,
    credential: string | undefined,
    tool: ExecutableTool,
    call: ToolCall,
    ctx: ToolContext,
    traceMeta: Record<string, string> | undefined,
  ): Promise<CallToolResult | RefusedCall | McpMessageTooLargeError> {
    const { client, onTooLarge } = await this.pool.client(source, credential);
    // An answer over mcp.max_result_bytes closes the connection, which fails the call with an anonymous
    // "Connection closed"; listening for it keeps the reason.
    const sizeChecked = <T>(pending: Promise<T>) =>
      new Promise<T | McpMessageTooLargeError>((resolve, reject) => {
        const stop = onTooLarge(resolve);
        pending.then(resolve, reject).finally(stop);
      });
    const verdict = await sizeChecked(this.definitions.verify(this.definitions.sdkLister(client), tool, ctx.signal));
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

type McpSource = Parameters<McpClientPool['client']>[0];

/**
 * Whether a 2026-07-28 request was refused unread because the server does not (or no longer) speak that
 * revision: an unsupported-version error, or a 4xx that is no modern error (a legacy server's "no session").
 * Authentication failures say nothing about the era.
 */
function eraMismatch(error: unknown): boolean {
  if (error instanceof UpstreamRpcError)
    return (
      error.code === ErrorCodes.UnsupportedProtocolVersion ||
      (!error.modern && error.httpStatus >= 400 && error.httpStatus < 500 && ![401, 403].includes(error.httpStatus))
    );
  return (
    error instanceof UpstreamHttpError &&
    error.status >= 400 &&
    error.status < 500 &&
    ![401, 403].includes(error.status)
  );
}

import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppConfig } from '../../config/app-config';
import { CatalogState } from '../catalog/catalog-state';
import { resultText, scanToolOutput } from '../catalog/output-scan';
import { CatalogExecutors } from '../catalog/catalog-tool-policy';
import type { ToolEntity } from '../catalog/tool.entity';
import type { ToolCall, ToolContext, ToolExecutor, ToolResult } from '../tool-executor';
import { McpClientPool } from './mcp-client-pool';
import { McpDefinitionCheck } from './mcp-definition-check';
import { McpHealth } from './mcp-health';
import { sessionLostBeforeSend } from './mcp-session-lost';
import { McpSourcesService } from './mcp-sources.service';

/** A call not sent because the server no longer offers the approved definition. */
class RefusedCall {
  constructor(readonly refusal: { code: string; message: string }) {}
}

/**
 * Runs catalog tools of MCP sources through `tools/call` on a pooled client per (source, tenant
 * credential). The call's AbortSignal cancels the MCP request (the SDK sends notifications/cancelled),
 * MCP progress notifications become ToolContext.progress events, and the result (text, image and
 * resource content, structuredContent, isError) is carried through faithfully.
 */
@Injectable()
export class McpExecutor extends CatalogExecutors implements ToolExecutor {
  private readonly known = new Set<string>();

  constructor(
    private readonly state: CatalogState,
    private readonly sources: McpSourcesService,
    private readonly pool: McpClientPool,
    private readonly health: McpHealth,
    private readonly config: AppConfig,
    private readonly definitions: McpDefinitionCheck,
  ) {
    super();
  }

  executorFor(entry: ToolEntity): ToolExecutor | undefined {
    if (entry.source.type !== 'mcp') return undefined;
    this.known.add(entry.name);
    return this;
  }

  canExecute(name: string): boolean {
    return this.known.has(name);
  }

  async execute(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const entry = (await this.state.get()).toolsByName.get(call.name);
    const sourceName = entry?.source.server_name;
    const source = sourceName ? await this.sources.byName(sourceName) : undefined;
    if (!entry || !source) {
      return {
        callId: call.id,
        isError: true,
        output: { error: { message: `MCP source '${sourceName ?? '?'}' of tool '${call.name}' is not registered` } },
      };
    }
    const credential = ctx.credential?.value;
    const started = performance.now();
    let ok = false;
    try {
      const result = await this.callOnce(source, credential, entry, call, ctx).catch(async (error: unknown) => {
        // Only a request that never reached the tool is sent again: a tool may not be idempotent.
        if (ctx.signal.aborted || !sessionLostBeforeSend(error)) throw error;
        // The server restarted or dropped our session: one fresh connection, then give up.
        await this.pool.discard(source, credential);
        return this.callOnce(source, credential, entry, call, ctx);
      });
      if (result instanceof RefusedCall) {
        // The catalog is behind the server: a refresh records the change (pending review) for everyone.
        this.pool.announceToolListChanged(source);
        ok = true;
        return { callId: call.id, output: null, isError: true, refusal: result.refusal };
      }
      ok = !result.isError;
      const output: Record<string, unknown> = { content: result.content };
      if (result.structuredContent !== undefined) output.structuredContent = result.structuredContent;
      const scan = this.scan(entry, output);
      if (scan === 'block')
        return {
          callId: call.id,
          output: null,
          isError: true,
          // The text itself is not repeated: it is what must not reach the model.
          refusal: {
            code: 'injection_blocked',
            message: `Tool '${call.name}' returned text that reads like instructions addressed to the model; the result was withheld (output_scan: block)`,
          },
        };
      return {
        callId: call.id,
        output,
        isError: result.isError === true,
        ...(scan === 'flag' && { metadata: { injection_suspected: true } }),
      };
    } finally {
      if (!ctx.signal.aborted) this.health.recordCall(source.name, ok, performance.now() - started);
    }
  }

  /** What to do with this result: the tool's mode when it reads like injection, or undefined to pass it on. */
  private scan(entry: ToolEntity, output: Record<string, unknown>): 'flag' | 'block' | undefined {
    const mode = entry.outputScan ?? this.config.catalog.output_scan;
    if (mode === 'off') return undefined;
    const maxChars = this.config.catalog.output_scan_max_chars;
    return scanToolOutput(resultText(output, maxChars), maxChars).injectionSuspected ? mode : undefined;
  }

  private async callOnce(
    source: Parameters<McpClientPool['client']>[0],
    credential: string | undefined,
    entry: ToolEntity,
    call: ToolCall,
    ctx: ToolContext,
  ): Promise<CallToolResult | RefusedCall> {
    const { client } = await this.pool.client(source, credential);
    const verdict = await this.definitions.verify(client, entry, ctx.signal);
    if (!verdict.ok) return new RefusedCall({ code: verdict.code, message: verdict.message });
    return (await client.callTool(
      { name: entry.source.tool_name!, arguments: (call.arguments ?? {}) as Record<string, unknown> },
      undefined,
      {
        signal: ctx.signal,
        // The dispatcher owns the deadline (and aborts the signal); the SDK's own default must not cut in first.
        timeout: this.config.tools.max_timeout,
        onprogress: (progress) =>
          ctx.progress({ progress: progress.progress, total: progress.total, message: progress.message }),
      },
    )) as CallToolResult;
  }
}

import { Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  ServerNotification,
  ServerRequest,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { Request, Response } from 'express';
import { version } from '../../package.json';
import { AppConfig } from '../config/app-config';
import { Tracing } from '../observability/tracing/tracing';
import type { Identity } from '../tenancy/request-context';
import { asMcpTool } from '../tools/invocation/tool-definitions.controller';
import type { Resumption } from '../tools/invocation/call-result';
import { InvokeOptions, ToolDispatcher } from '../tools/invocation/tool-dispatcher';
import type { InputRequest } from '../tools/tool-executor';
import type { ResolvedTool } from '../tools/invocation/tool-policy';
import { errorResult, toCallToolResult } from './call-tool-result';
import { JsonRpcError } from './json-rpc-error';
import { CALL_TOOL, metaTools, SEARCH_TOOLS } from './meta-tools';
import { callToolArguments, searchToolsArguments } from './meta-tool-arguments';
import { byServedName } from './served-tool-order';
import { ToolSearch } from './tool-search/tool-search.service';

const PAGE_SIZE = 100;

/** A call whose tool waits for the client's input: what it asks, and what the client's retry resumes. */
export class PendingInput {
  constructor(
    readonly inputRequests: Record<string, InputRequest> | undefined,
    readonly resumption: Resumption,
  ) {}
}

/** What a call needs of its request: the abort signal and a way to send notifications on its response. */
export type CallExtra = Pick<
  RequestHandlerExtra<ServerRequest, ServerNotification>,
  'signal' | 'sendNotification' | '_meta'
>;

/**
 * The MCP server at /mcp: each tenant's governed tool set, served over stateless Streamable HTTP.
 * Every POST gets its own server and transport, built for the caller authenticated on that request and
 * closed with its response, so any replica answers any request and nothing is kept between requests.
 * tools/list is the caller's effective set; tools/call runs through the ToolDispatcher (authorization,
 * validation, rate limits, audit, metrics). Without a session there is no stream to push
 * notifications/tools/list_changed on: 2025-era clients re-list to see changes (2026-07-28 clients, served by
 * era-2026/ through listTools and answerCall here, subscribe with subscriptions/listen).
 * A set larger than gateway.max_listed_tools is listed as two meta-tools, search_tools and call_tool
 * (see meta-tools.ts); call_tool goes through the same dispatch as a direct tools/call.
 */
@Injectable()
export class McpGatewayService {
  private readonly maxListedTools: number;
  /**
   * The SDK server builds its own Ajv instance unless given one, which is most of the cost of the server
   * built for every request; the gateway never asks clients for input, so one validator serves all.
   */
  private readonly schemaValidator = new AjvJsonSchemaValidator();

  constructor(
    private readonly dispatcher: ToolDispatcher,
    private readonly toolSearch: ToolSearch,
    config: AppConfig,
    private readonly tracing: Tracing,
  ) {
    this.maxListedTools = config.gateway.max_listed_tools;
  }

  /**
   * Answers one JSON-RPC POST for the caller: as one JSON body, or as an SSE stream when a call asked for progress
   * (which then goes on the POST's own stream). JSON spares both ends the stream's framing.
   */
  async serve(identity: Identity, request: Request, response: Response): Promise<void> {
    const server = this.build(identity);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !asksForProgress(request.body),
    });
    // Closing the transport when the client goes away aborts the handlers still running, and with them
    // the tool call (cancel-on-disconnect). Closing one whose client is gone may fail: nothing is left.
    response.on('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, request.body);
  }

  private build(identity: Identity): Server {
    const server = new Server(
      { name: 'toolgate', version },
      { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: this.schemaValidator },
    );
    server.setRequestHandler(ListToolsRequestSchema, async (request) =>
      this.listTools(identity, request.params?.cursor),
    );
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) =>
      this.answerCall(
        identity,
        request.params.name,
        request.params.arguments ?? {},
        request.params._meta?.progressToken,
        extra,
      ),
    );
    return server;
  }

  /**
   * A tools/call of either protocol era: a meta-tool while the caller's set is over budget, otherwise the
   * catalog tool of that name. Refusals the caller should correct come back as a thrown JsonRpcError.
   */
  async answerCall(
    identity: Identity,
    name: string,
    args: Record<string, unknown>,
    progressToken: string | number | undefined,
    extra: CallExtra,
  ): Promise<CallToolResult> {
    // Without `input` the dispatcher never answers input_required: a tool asking for input fails, saying so.
    const answer = await this.answerRelayingInput(identity, name, args, progressToken, extra, undefined);
    return answer instanceof PendingInput
      ? errorResult(`Tool '${name}' asks for input this client cannot give`)
      : answer;
  }

  /**
   * The same, for a client that can answer a tool's requests for input (MCP 2026-07-28): `input` carries its
   * capabilities and, on a retry, the call it resumes; a tool asking for input comes back as PendingInput.
   */
  async answerRelayingInput(
    identity: Identity,
    name: string,
    args: Record<string, unknown>,
    progressToken: string | number | undefined,
    extra: CallExtra,
    input: InvokeOptions['input'],
  ): Promise<CallToolResult | PendingInput> {
    if (name === SEARCH_TOOLS || name === CALL_TOOL) {
      // The meta-tools exist only while the set is over budget; otherwise the name is a catalog tool's.
      const tools = await this.dispatcher.effectiveTools(identity);
      if (tools.length > this.maxListedTools) {
        if (name === SEARCH_TOOLS) return this.searchTools(tools, args, extra.signal);
        const call = callToolArguments(args);
        if (typeof call === 'string') return errorResult(call);
        return this.callTool(identity, call.name, call.arguments, progressToken, extra, input);
      }
    }
    return this.callTool(identity, name, args, progressToken, extra, input);
  }

  /** A catalog tool through the dispatcher, whether named in tools/call or in call_tool's arguments. */
  private async callTool(
    identity: Identity,
    name: string,
    args: unknown,
    progressToken: string | number | undefined,
    extra: CallExtra,
    input: InvokeOptions['input'],
  ): Promise<CallToolResult | PendingInput> {
    let step = 0;
    // The call runs under the trace context the request's _meta names (traceparent, tracestate), if any.
    const result = await this.tracing.withRemoteParent(extra._meta, () =>
      this.dispatcher.invoke(
        identity,
        { name, arguments: args },
        {
          signal: extra.signal,
          input,
          onProgress:
            progressToken === undefined
              ? undefined
              : (event) => {
                  step += 1;
                  const progress = typeof event.progress === 'number' ? event.progress : step;
                  const total = typeof event.total === 'number' ? event.total : undefined;
                  const message = typeof event.message === 'string' ? event.message : undefined;
                  // Progress is advisory: a client that went away mid-call simply misses it.
                  void extra
                    .sendNotification({
                      method: 'notifications/progress',
                      params: { progressToken, progress, total, message },
                    })
                    .catch(() => undefined);
                },
        },
      ),
    );
    switch (result.status) {
      case 'unknown_tool':
        throw new JsonRpcError(ErrorCode.InvalidParams, result.message);
      case 'invalid':
        return errorResult(result.message);
      case 'rate_limited':
        return errorResult(result.toolCall.error!.message);
      case 'input_required':
        return new PendingInput(result.inputRequests, result.resumption);
      default:
        return toCallToolResult(result);
    }
  }

  /** Ranks the caller's own effective tools, never anyone else's. */
  private async searchTools(
    tools: ResolvedTool[],
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const search = searchToolsArguments(args);
    if (typeof search === 'string') return errorResult(search);
    const matches = await this.toolSearch.search(
      tools.map((tool) => tool.definition),
      search.query,
      search.limit,
      signal,
    );
    const found = {
      tools: matches.map((definition) => {
        const { name, description, inputSchema } = asMcpTool(definition);
        return { name, description, inputSchema };
      }),
    };
    return { content: [{ type: 'text', text: JSON.stringify(found) }], structuredContent: found };
  }

  /** The input schema a caller is served for a tool, or undefined (a tool it cannot see, or a meta-tool). */
  async servedInputSchema(identity: Identity, name: string): Promise<unknown> {
    const tool = (await this.dispatcher.effectiveTools(identity)).find((candidate) => candidate.name === name);
    return tool && asMcpTool(tool.definition).inputSchema;
  }

  /** The caller's effective set in served order, a page at a time (or the meta-tools when over budget). */
  async listTools(identity: Identity, cursor?: string): Promise<{ tools: Tool[]; nextCursor?: string }> {
    const tools = (await this.dispatcher.effectiveTools(identity)).sort(byServedName);
    if (tools.length > this.maxListedTools) return { tools: metaTools(tools.length) };
    const start = cursor ? Number(Buffer.from(cursor, 'base64url').toString()) : 0;
    if (!Number.isInteger(start) || start < 0) throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid cursor');
    const page = tools.slice(start, start + PAGE_SIZE).map((tool) => asMcpTool(tool.definition) as unknown as Tool);
    const next =
      start + PAGE_SIZE < tools.length ? Buffer.from(String(start + PAGE_SIZE)).toString('base64url') : undefined;
    return { tools: page, ...(next && { nextCursor: next }) };
  }
}

/** Whether a POSTed message (or batch) carries a progress token: its answer must be a stream to carry progress. */
function asksForProgress(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some(
    (message) =>
      (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !==
      undefined,
  );
}

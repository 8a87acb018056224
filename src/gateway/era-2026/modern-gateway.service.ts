import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config';
import type { Identity } from '../../tenancy/request-context';
import { JsonRpcError } from '../json-rpc-error';
import { ResumptionRefused, ResumptionSeal } from '../../tools/invocation/resumption-seal';
import { McpGatewayService, PendingInput } from '../mcp-gateway.service';
import { isLoggingLevel, LoggingLevel, reaches } from './log-levels';
import { ModernReply } from './modern-reply';
import { ErrorCodes, META, ModernError, ModernRequest, SERVED_VERSIONS, SERVER_INFO } from './protocol';
import { checkedRequest, checkParameterHeaders } from './request-envelope';
import { MAX_LISTENERS, ToolListSubscriptions } from './tool-list-subscriptions';

/** How long a server/discover answer stays fresh: it changes only with a new release. */
const DISCOVER_TTL_MS = 3_600_000;
/** SSE comment interval on listen streams, below common proxy idle timeouts (nginx: 60 s). */
const KEEP_ALIVE_MS = 25_000;

type Handler = (identity: Identity, request: ModernRequest, reply: ModernReply) => Promise<void>;

/**
 * MCP revision 2026-07-28 on /mcp beside the SDK's 2025-era server: every request stands alone, carrying
 * its protocol version, client capabilities and log level in `_meta`. Tools are listed and called through
 * McpGatewayService's own listing and call path (same dispatcher, budget meta-tools, audit), so both eras
 * are governed alike; this layer adds only the modern envelope: header checks, server/discover, result
 * types and cache hints, request-scoped log messages, subscriptions/listen for list changes, and the relay of
 * an upstream tool's input requests (Multi Round-Trip Requests) under a requestState of the gateway's own.
 */
@Injectable()
export class ModernGatewayService {
  private readonly logger = new Logger('ModernGateway');
  private readonly handlers: Record<string, Handler> = {
    'server/discover': (_identity, _request, reply) => Promise.resolve(reply.result(this.discover())),
    'tools/list': (identity, request, reply) => this.listTools(identity, request, reply),
    'tools/call': (identity, request, reply) => this.callTool(identity, request, reply),
    'subscriptions/listen': (identity, request, reply) => Promise.resolve(this.listen(identity, request, reply)),
  };
  private readonly listTtlMs: number;

  constructor(
    private readonly gateway: McpGatewayService,
    private readonly subscriptions: ToolListSubscriptions,
    private readonly seal: ResumptionSeal,
    config: AppConfig,
  ) {
    this.listTtlMs = config.gateway.tools_list_ttl;
  }

  async serve(identity: Identity, request: Request, response: Response): Promise<void> {
    const body = request.body as { id?: unknown };
    const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : undefined;
    const reply = new ModernReply(response, id);
    try {
      const checked = checkedRequest(request.body, request.headers);
      if (checked.method === 'tools/call') await this.checkParameterHeaders(identity, checked, request);
      const handler = Object.hasOwn(this.handlers, checked.method) ? this.handlers[checked.method] : undefined;
      if (!handler) {
        throw new ModernError(ErrorCodes.MethodNotFound, `Method not found: ${checked.method.slice(0, 100)}`, 404);
      }
      await handler(identity, checked, reply);
    } catch (error) {
      reply.error(asModernError(error, this.logger));
    }
  }

  /** A tools/call's Mcp-Param-* headers against its arguments, for the tool as this caller is served it. */
  private async checkParameterHeaders(identity: Identity, checked: ModernRequest, request: Request): Promise<void> {
    const { name, arguments: args } = checked.params;
    if (typeof name !== 'string' || (args !== undefined && (args === null || typeof args !== 'object'))) return;
    const schema = await this.gateway.servedInputSchema(identity, name);
    checkParameterHeaders(schema, (args ?? {}) as Record<string, unknown>, request.headers);
  }

  private discover(): Record<string, unknown> {
    return {
      resultType: 'complete',
      supportedVersions: SERVED_VERSIONS,
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions:
        'The tools you are allowed to use, governed by Toolgate. When more are available than a client can take, search_tools finds them and call_tool runs one.',
      ttlMs: DISCOVER_TTL_MS,
      // The same for every caller: nothing in it depends on who asks.
      cacheScope: 'public',
      _meta: { [META.serverInfo]: SERVER_INFO },
    };
  }

  private async listTools(identity: Identity, request: ModernRequest, reply: ModernReply): Promise<void> {
    const cursor = request.params.cursor;
    if (cursor !== undefined && typeof cursor !== 'string') throw invalid('cursor must be a string');
    const page = await this.gateway.listTools(identity, cursor);
    reply.result({
      resultType: 'complete',
      ...page,
      ttlMs: this.listTtlMs,
      // The list is the caller's own effective set: never to be shared across credentials.
      cacheScope: 'private',
      _meta: { [META.serverInfo]: SERVER_INFO },
    });
  }

  private async callTool(identity: Identity, request: ModernRequest, reply: ModernReply): Promise<void> {
    const { name, arguments: args, _meta: meta } = request.params;
    if (typeof name !== 'string') throw invalid('name must be a string');
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args)))
      throw invalid('arguments must be an object');
    const progressToken = meta.progressToken;
    if (progressToken !== undefined && typeof progressToken !== 'string' && typeof progressToken !== 'number')
      throw invalid('_meta.progressToken must be a string or a number');
    const logLevel = meta[META.logLevel];
    if (logLevel !== undefined && !isLoggingLevel(logLevel))
      throw invalid(`_meta["${META.logLevel}"] must be a logging level such as "info"`);
    const log = (level: LoggingLevel, data: unknown) => {
      // Log messages only for a request that asked for them, at its level and above.
      if (logLevel !== undefined && reaches(level, logLevel))
        reply.notify('notifications/message', { level, logger: 'toolgate', data });
    };
    const binding = { identity, tool: name, arguments: args ?? {} };
    const input = this.clientInput(request, binding);
    log('debug', input.resume ? `Resuming ${name} with the client's input` : `Calling ${name}`);
    const result = await this.gateway.answerRelayingInput(
      identity,
      name,
      (args ?? {}) as Record<string, unknown>,
      progressToken,
      {
        signal: reply.signal,
        // Trace context (traceparent, tracestate) travels in _meta in both eras.
        _meta: meta,
        sendNotification: (notification) =>
          Promise.resolve(reply.notify(notification.method, notification.params ?? {})),
      },
      input,
    );
    if (result instanceof PendingInput) {
      log('info', `${name} asks for the client's input`);
      // The tool's own state travels sealed inside the gateway's: the client sends it back unchanged.
      reply.result({
        resultType: 'input_required',
        ...(result.inputRequests && { inputRequests: result.inputRequests }),
        requestState: this.seal.seal(result.resumption, binding),
        _meta: { [META.serverInfo]: SERVER_INFO },
      });
      return;
    }
    if (result.isError) log('warning', `${name} ended with an error`);
    else log('info', `${name} completed`);
    reply.result({
      resultType: 'complete',
      ...result,
      _meta: { ...result._meta, [META.serverInfo]: SERVER_INFO },
    });
  }

  /**
   * What the client can give a tool that asks for input (its declared capabilities) and, on a retry, the call it
   * resumes: `requestState` must be one this gateway sealed for this caller, tool and arguments, and unexpired.
   */
  private clientInput(
    request: ModernRequest,
    binding: Parameters<ResumptionSeal['open']>[1],
  ): NonNullable<Parameters<McpGatewayService['answerRelayingInput']>[5]> {
    const { inputResponses, requestState, _meta: meta } = request.params;
    const declared = meta[META.clientCapabilities];
    const capabilities =
      declared !== null && typeof declared === 'object' && !Array.isArray(declared)
        ? (declared as Record<string, unknown>)
        : {};
    if (
      inputResponses !== undefined &&
      (inputResponses === null || typeof inputResponses !== 'object' || Array.isArray(inputResponses))
    )
      throw invalid('inputResponses must be an object keyed as the inputRequests it answers');
    if (requestState === undefined) {
      if (inputResponses !== undefined)
        throw invalid('inputResponses must come with the requestState of the input_required answer they respond to');
      return { capabilities };
    }
    if (typeof requestState !== 'string') throw invalid('requestState must be the string sent with input_required');
    try {
      const resumption = this.seal.open(requestState, binding);
      return { capabilities, resume: { ...resumption, responses: inputResponses as Record<string, unknown> } };
    } catch (error) {
      if (error instanceof ResumptionRefused) throw invalid(error.message);
      throw error;
    }
  }

  /**
   * subscriptions/listen: acknowledged at once on a stream that stays open; notifications/tools/list_changed
   * follows whenever the caller's effective set changes, on this replica's change events or another's.
   */
  private listen(identity: Identity, request: ModernRequest, reply: ModernReply): void {
    const filter = request.params.notifications;
    if (filter === null || typeof filter !== 'object' || Array.isArray(filter))
      throw invalid('notifications must be an object naming the notifications to receive');
    if (this.subscriptions.full)
      throw new ModernError(ErrorCodes.InternalError, `This server holds ${MAX_LISTENERS} subscriptions; retry later`);
    const subscriptionMeta = { [META.subscriptionId]: request.id };
    // Only the notifications this gateway sends: it serves no prompts or resources.
    const tools = (filter as Record<string, unknown>).toolsListChanged === true;
    reply.stream();
    reply.notify('notifications/subscriptions/acknowledged', {
      _meta: subscriptionMeta,
      notifications: tools ? { toolsListChanged: true } : {},
    });
    const keepAlive = setInterval(() => reply.keepAlive(), KEEP_ALIVE_MS).unref();
    // Registered even without toolsListChanged, so that shutdown ends every open stream alike.
    const stop = this.subscriptions.add({
      identity,
      changed: () => {
        if (tools) reply.notify('notifications/tools/list_changed', { _meta: subscriptionMeta });
      },
      close: () => reply.result({ resultType: 'complete', _meta: subscriptionMeta }),
    });
    reply.onEnd(() => {
      clearInterval(keepAlive);
      stop();
    });
  }
}

function invalid(message: string): ModernError {
  return new ModernError(ErrorCodes.InvalidParams, message);
}

function asModernError(error: unknown, logger: Logger): ModernError {
  if (error instanceof ModernError) return error;
  if (error instanceof JsonRpcError) return new ModernError(error.code, error.message);
  // As the HTTP error filter does: the details go to the log under an id, the caller gets only the id.
  const errorId = randomUUID();
  logger.error({ err: error, errorId }, 'MCP request failed');
  return new ModernError(
    ErrorCodes.InternalError,
    `The server had an error while processing your request (error id ${errorId})`,
    500,
  );
}

import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config';
import type { Identity } from '../../tenancy/request-context';
import { JsonRpcError } from '../json-rpc-error';
import { McpGatewayService } from '../mcp-gateway.service';
import { isLoggingLevel, LoggingLevel, reaches } from './log-levels';
import { ModernReply } from './modern-reply';
import { ErrorCodes, META, ModernError, ModernRequest, SERVED_VERSIONS, SERVER_INFO } from './protocol';
import { checkedRequest } from './request-envelope';
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
 * types and cache hints, request-scoped log messages, and subscriptions/listen for list changes.
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
      const handler = Object.hasOwn(this.handlers, checked.method) ? this.handlers[checked.method] : undefined;
      if (!handler) {
        throw new ModernError(ErrorCodes.MethodNotFound, `Method not found: ${checked.method.slice(0, 100)}`, 404);
      }
      await handler(identity, checked, reply);
    } catch (error) {
      reply.error(asModernError(error, this.logger));
    }
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
    log('debug', `Calling ${name}`);
    const result = await this.gateway.answerCall(
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
    );
    if (result.isError) log('warning', `${name} ended with an error`);
    else log('info', `${name} completed`);
    reply.result({
      resultType: 'complete',
      ...result,
      _meta: { ...result._meta, [META.serverInfo]: SERVER_INFO },
    });
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

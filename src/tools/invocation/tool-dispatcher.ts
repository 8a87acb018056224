import { BeforeApplicationShutdown, Injectable, Logger, Optional } from '@nestjs/common';
import { ApiError } from '../../common/api-error';
import { newId } from '../../common/ids';
import { findTooDeep } from '../../common/json-depth';
import { tooDeep } from '../../common/json-depth.middleware';
import { formatViolations, JsonSchemaValidator } from '../../common/json-schema';
import { AppConfig } from '../../config/app-config';
import type { Identity } from '../../tenancy/request-context';
import type { ToolContext, ToolResult } from '../tool-executor';
import { unknownToolMessage } from './did-you-mean';
import { InvocationMetrics } from './invocation.metrics';
import type { ToolCallObject, ToolCallStatus } from './tool-call';
import { TenantCredentials } from './tenant-credentials';
import { ToolCallAudit, ToolCallOutcome } from './tool-call-audit';
import { Authorization, ResolvedTool, ToolPolicy } from './tool-policy';

export interface InvokeRequest {
  name: string;
  /** An object, or a JSON string as models produce them. */
  arguments?: unknown;
  callId?: string;
  responseId?: string;
  timeoutMs?: number;
}

export interface InvokeOptions {
  /** Aborts the call (client disconnect). */
  signal?: AbortSignal;
  /** Called once every check has passed, just before the tool starts. */
  onStart?(toolCall: ToolCallObject): void;
  /** Receives the tool's progress events, in order, until the call ends. */
  onProgress?(event: Record<string, unknown>): void;
}

type AbortCause = 'client' | 'timeout' | 'shutdown';

class CallAborted extends Error {
  constructor(readonly why: AbortCause) {
    super(`aborted: ${why}`);
  }
}

/**
 * The only path by which any tool runs: resolve -> authorize (approval, tenant access) -> refuse function
 * tools -> validate arguments -> take a rate-limit slot -> audit `started` -> execute -> validate result ->
 * audit the outcome -> metrics. Every refusal is audited too. A failing tool becomes a failed tool_call,
 * never an HTTP 500.
 */
@Injectable()
export class ToolDispatcher implements BeforeApplicationShutdown {
  private readonly logger = new Logger('ToolDispatcher');
  private readonly shutdown = new AbortController();

  constructor(
    private readonly policy: ToolPolicy,
    private readonly schemas: JsonSchemaValidator,
    private readonly config: AppConfig,
    private readonly metrics: InvocationMetrics,
    private readonly credentials: TenantCredentials,
    @Optional() private readonly audit?: ToolCallAudit,
  ) {}

  async invoke(identity: Identity, request: InvokeRequest, options: InvokeOptions = {}): Promise<ToolCallObject> {
    const toolCall = this.newToolCall(request);
    const tool = await this.resolve(identity, request.name);
    const rawArguments = request.arguments;

    const access = await this.policy.authorize(identity, tool);
    if (!access.allowed) return this.refuse(identity, tool, rawArguments, toolCall, access);

    if (tool.source === 'function') {
      throw await this.reject(
        { identity, tool, arguments: rawArguments, toolCall, rejection: 'refused' },
        ApiError.invalid(
          `Tool '${tool.name}' is a function tool: the client executes it, so it cannot be run here`,
          'name',
          'client_executed_tool',
        ),
      );
    }
    const args = this.validArguments(tool, rawArguments);
    if (args instanceof ApiError)
      throw await this.reject({ identity, tool, arguments: rawArguments, toolCall, rejection: 'invalid' }, args);

    // Last, so that only a call that is going to run takes a slot.
    const slot = await this.policy.takeRateLimitSlot(identity, tool);
    if (!slot.allowed) return this.refuse(identity, tool, args, toolCall, slot);

    const record = await this.audit?.start({ identity, tool, arguments: args, toolCall });
    const started = performance.now();
    options.onStart?.({ ...toolCall });
    const { status, output, error, metadata } = await this.execute(identity, tool, toolCall, args, request, options);
    const done = {
      ...finish(toolCall, status, output, error, performance.now() - started),
      ...(metadata && { metadata }),
    };
    this.metrics.duration.observe({ tool_name: tool.name, source: tool.source }, (done.duration_ms ?? 0) / 1000);
    if (record !== undefined) await this.audit?.finish(record, { identity, tool, arguments: args, toolCall: done });
    this.metrics.calls.inc({ tool_name: tool.name, source: tool.source, status: done.status });
    return done;
  }

  /** The caller's effective tools (for definitions and "did you mean"). */
  effectiveTools(identity: Identity, requested?: string[]): Promise<ResolvedTool[]> {
    return this.policy.effectiveTools(identity, requested);
  }

  beforeApplicationShutdown(): void {
    this.shutdown.abort();
  }

  private newToolCall(request: InvokeRequest): ToolCallObject {
    const id = newId('call_');
    return {
      id,
      object: 'tool_call',
      call_id: request.callId ?? id,
      name: request.name,
      status: 'in_progress',
      output: null,
      error: null,
      duration_ms: null,
      created_at: Math.floor(Date.now() / 1000),
      response_id: request.responseId ?? null,
    };
  }

  private async resolve(identity: Identity, name: string): Promise<ResolvedTool> {
    const tool = await this.policy.resolve(identity, name);
    if (tool) return tool;
    const known = (await this.policy.effectiveTools(identity)).map((t) => t.name);
    throw ApiError.invalid(unknownToolMessage(name, known), 'name', 'unknown_tool');
  }

  /** The parsed arguments, or the 400 that explains why they do not fit the tool's schema. */
  private validArguments(tool: ResolvedTool, raw: unknown): unknown {
    let args = raw ?? {};
    if (typeof args === 'string') {
      try {
        args = args.trim() === '' ? {} : JSON.parse(args);
      } catch (error) {
        return ApiError.invalid(
          `arguments is not valid JSON: ${(error as Error).message}`,
          'arguments',
          'invalid_arguments',
        );
      }
      // A string escapes the body's depth check; the parsed value must pass it before validation walks it.
      const maxDepth = this.config.server.max_json_depth;
      const tooDeepAt = findTooDeep(args, maxDepth, 'arguments');
      if (tooDeepAt !== undefined) throw tooDeep(tooDeepAt, maxDepth);
    }
    const violations = this.schemas.validate(tool.definition.parameters, args);
    if (violations.length > 0) {
      return ApiError.invalid(
        `Invalid arguments for tool '${tool.name}': ${formatViolations(violations)}`,
        'arguments',
        'invalid_arguments',
      );
    }
    return args;
  }

  private async execute(
    identity: Identity,
    tool: ResolvedTool,
    toolCall: ToolCallObject,
    args: unknown,
    request: InvokeRequest,
    options: InvokeOptions,
  ): Promise<CallEnd> {
    const executor = tool.executor;
    if (!executor) {
      return failure(
        'not_executable',
        `Tool '${tool.name}' cannot run: its ${tool.source} source '${tool.origin}' is not available`,
      );
    }
    const credential = await this.credentialFor(identity, tool);
    if ('error' in credential) return failure(credential.code, credential.error);
    const timeoutMs = this.timeoutFor(request.timeoutMs);
    const controller = new AbortController();
    let cause: AbortCause | undefined;
    const abort = (reason: AbortCause) => {
      cause ??= reason;
      controller.abort(new CallAborted(reason));
    };
    const timer = setTimeout(() => abort('timeout'), timeoutMs);
    const onClient = () => abort('client');
    const onShutdown = () => abort('shutdown');
    if (options.signal?.aborted) abort('client');
    options.signal?.addEventListener('abort', onClient, { once: true });
    this.shutdown.signal.addEventListener('abort', onShutdown, { once: true });
    let open = true;
    const context: ToolContext = {
      tenantId: identity.tenantId,
      userId: identity.subject,
      agentProfile: identity.agentProfile,
      responseId: toolCall.response_id ?? undefined,
      credential: credential.value,
      signal: controller.signal,
      progress: (event) => {
        if (open) options.onProgress?.(event);
      },
    };
    try {
      const result = await runUntilAborted(
        () => executor.execute({ id: toolCall.call_id, name: tool.name, arguments: args }, context),
        controller.signal,
      );
      return this.judgeResult(tool, result);
    } catch (error) {
      if (cause === 'timeout') return failure('timeout', `Tool '${tool.name}' did not finish within ${timeoutMs} ms`);
      if (cause === 'client')
        return {
          status: 'cancelled',
          output: null,
          error: { code: 'cancelled', message: 'The client went away; the call was cancelled' },
        };
      if (cause === 'shutdown')
        return {
          status: 'cancelled',
          output: null,
          error: { code: 'shutdown', message: 'The service is shutting down; the call was cancelled' },
        };
      this.logger.warn({ err: error, tool: tool.name }, 'Tool execution threw');
      return failure('tool_error', `Tool '${tool.name}' failed: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      open = false;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onClient);
      this.shutdown.signal.removeEventListener('abort', onShutdown);
    }
  }

  /** The tenant's own credential for a tool with `source.credential_key`; named (never shown) when missing. */
  private async credentialFor(
    identity: Identity,
    tool: ResolvedTool,
  ): Promise<{ value?: { key: string; value: string } } | { error: string; code: string }> {
    const key = tool.governance?.credentialKey;
    if (!key) return {};
    try {
      const value = await this.credentials.resolve(identity.tenantId, key);
      if (value !== undefined) return { value: { key, value } };
      return {
        code: 'missing_credential',
        error: `Tool '${tool.name}' needs the credential '${key}' of tenant '${identity.tenantId}': store it with PUT /v1/tenants/${identity.tenantId}/credentials/${key}`,
      };
    } catch (error) {
      return { code: 'credential_unavailable', error: (error as Error).message };
    }
  }

  private judgeResult(tool: ResolvedTool, result: ToolResult): CallEnd {
    if (result.refusal) return failure(result.refusal.code, result.refusal.message);
    const outcome = this.checkResult(tool, result);
    // A flagged result still goes to the caller, marked, whether it succeeded or failed.
    return result.metadata?.injection_suspected === true
      ? { ...outcome, metadata: { injection_suspected: true } }
      : outcome;
  }

  private checkResult(tool: ResolvedTool, result: ToolResult): CallEnd {
    // Results often come from remote servers: one nested too deep to walk fails this call, not the process.
    const maxDepth = this.config.server.max_json_depth;
    const tooDeepAt = findTooDeep(result.output, maxDepth, 'output');
    if (tooDeepAt !== undefined) {
      return failure(
        'result_too_deep',
        `Tool '${tool.name}' returned a result nested more than ${maxDepth} levels deep (at '${tooDeepAt}')`,
      );
    }
    if (result.isError) {
      return {
        status: 'failed',
        output: result.output,
        error: { code: 'tool_error', message: errorMessageOf(result.output, tool.name) },
      };
    }
    const returns = tool.definition.returns;
    const violations = returns ? this.schemas.validate(returns, result.output) : [];
    if (violations.length > 0) {
      return failure(
        'invalid_result',
        `Tool '${tool.name}' returned a result that does not match its result schema: ${formatViolations(violations)}`,
      );
    }
    return { status: 'completed', output: result.output, error: null };
  }

  private timeoutFor(requested: number | undefined): number {
    const { default_timeout, max_timeout } = this.config.tools;
    return Math.min(requested ?? default_timeout, max_timeout);
  }

  /** A call the policy turned away (denied, rate limited): audited, counted, answered as a tool_call or a 429. */
  private async refuse(
    identity: Identity,
    tool: ResolvedTool,
    args: unknown,
    toolCall: ToolCallObject,
    refusal: Extract<Authorization, { allowed: false }>,
  ): Promise<ToolCallObject> {
    const refused = finish(toolCall, refusal.status, null, { code: refusal.code, message: refusal.reason });
    await this.audit?.record({ identity, tool, arguments: args, toolCall: refused });
    this.metrics.calls.inc({ tool_name: tool.name, source: tool.source, status: refused.status });
    if (refusal.status === 'rate_limited') throw rateLimited(refusal.reason, refusal.retryAfterSeconds);
    return refused;
  }

  /** A call that cannot run as asked (invalid arguments, a function tool): audited, then answered with the 400. */
  private async reject(outcome: ToolCallOutcome, error: ApiError): Promise<ApiError> {
    const toolCall = finish(outcome.toolCall, 'failed', null, {
      code: error.code ?? 'invalid_request',
      message: error.message,
    });
    await this.audit?.record({ ...outcome, toolCall });
    return error;
  }
}

/**
 * Runs the tool but stops waiting as soon as the signal fires: a tool that ignores its signal or never
 * settles cannot hold the call. Its eventual outcome is discarded.
 */
function runUntilAborted<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve()
      .then(work)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function finish(
  toolCall: ToolCallObject,
  status: ToolCallStatus,
  output: unknown,
  error: ToolCallObject['error'],
  durationMs?: number,
): ToolCallObject {
  return {
    ...toolCall,
    status,
    output,
    error,
    duration_ms: durationMs === undefined ? null : Math.round(durationMs * 1000) / 1000,
  };
}

/** How a call that ran ended; `metadata` only when there is something to say about the result. */
type CallEnd = Pick<ToolCallObject, 'status' | 'output' | 'error' | 'metadata'>;

function failure(code: string, message: string): Pick<ToolCallObject, 'status' | 'output' | 'error'> {
  return { status: 'failed', output: null, error: { code, message } };
}

function errorMessageOf(output: unknown, toolName: string): string {
  if (typeof output === 'string' && output !== '') return output;
  // MCP error results carry their message as text content.
  const content = (output as { content?: { type?: string; text?: string }[] } | null)?.content;
  const texts = Array.isArray(content)
    ? content.filter((item) => item?.type === 'text' && item.text).map((item) => item.text)
    : [];
  if (texts.length > 0) return texts.join('\n');
  const nested =
    (output as { error?: { message?: unknown }; message?: unknown } | null)?.error?.message ??
    (output as { message?: unknown } | null)?.message;
  return typeof nested === 'string' ? nested : `Tool '${toolName}' reported an error`;
}

function rateLimited(reason: string, retryAfterSeconds = 1): ApiError {
  return new ApiError(429, 'rate_limit_error', reason, 'rate_limited', null, {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
}

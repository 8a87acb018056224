import { BeforeApplicationShutdown, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { findTooDeep, storableJson, storableText } from '../../common/json-depth';
import { tooDeepMessage } from '../../common/json-depth.middleware';
import { formatViolations, JsonSchemaValidator } from '../../common/json-schema';
import { unixSeconds } from '../../common/time';
import { AppConfig } from '../../config/app-config';
import { traceResolvedTool, traceToolCall } from '../../observability/tracing/tool-call-spans';
import { Tracing } from '../../observability/tracing/tracing';
import type { Identity } from '../../tenancy/request-context';
import type { CallScope } from '../call-scope';
import { capabilitiesNeeded, inputUnavailableMessage } from '../client-input';
import { Execution, InputRequired, outputOf, ToolContext, ToolPayload } from '../tool-executor';
import { CallGuard, GuardFinding } from './call-guard';
import type { AnsweredCall, CallResult, Resumption } from './call-result';
import { unknownToolMessage } from './did-you-mean';
import { InvocationMetrics } from './invocation.metrics';
import type { ToolCallObject, ToolCallStatus } from './tool-call';
import { TenantCredentials } from './tenant-credentials';
import { CallRejection, ToolCallAudit } from './tool-call-audit';
import { ToolExecutors } from './tool-executors';
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
  /** The run this call belongs to (a /v1/responses run), whose resources its calls share. */
  scope?: CallScope;
  /**
   * Set by a caller that can relay a tool's requests for input to its client (MCP 2026-07-28): the client's
   * declared capabilities and, on its retry, the call it resumes with the client's answers. Without it a tool
   * that asks for input fails with an error naming what it asked for.
   */
  input?: { capabilities: Record<string, unknown>; resume?: Resumption & { responses?: Record<string, unknown> } };
}

/** A tool asking for input again and again is not a dialogue: after this many rounds of input the call fails. */
const MAX_INPUT_ROUNDS = 8;

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
 * never an HTTP 500. The answer is a CallResult; how it is shown (HTTP status, MCP result, response item)
 * is up to the surface that asked.
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
    private readonly executors: ToolExecutors,
    private readonly clock: Clock,
    private readonly tracing: Tracing,
    @Optional() private readonly audit?: ToolCallAudit,
    @Optional() private readonly guard?: CallGuard,
  ) {}

  invoke(identity: Identity, request: InvokeRequest, options: InvokeOptions = {}): Promise<CallResult> {
    return traceToolCall(this.tracing, identity.tenantId, () => this.dispatch(identity, request, options));
  }

  private async dispatch(identity: Identity, request: InvokeRequest, options: InvokeOptions): Promise<CallResult> {
    const resume = options.input?.resume;
    const toolCall = this.newToolCall(request, resume);
    const authorized = await this.policy.authorize(identity, request.name);
    if (!authorized) return this.unknownTool(identity, request.name);
    const { tool, access } = authorized;
    traceResolvedTool(this.tracing, tool.name, tool.source.type);
    // A retry continues the call of its first round, on that round's audit record: taken back once only, so a
    // replayed state can neither run the call again nor rewrite how it ended.
    let record = resume?.auditRecord;
    if (record !== undefined && !(await this.audit?.resume(record, identity.tenantId))) {
      return {
        status: 'invalid',
        code: 'request_state_used',
        message: `The requestState of this call of '${tool.name}' was already used: start the call again without it`,
        param: 'requestState',
      };
    }
    const rawArguments = request.arguments;
    if (!access.allowed) {
      const refused = await this.refuse(identity, tool, rawArguments, toolCall, access, [], record);
      return authorized.visible ? refused : this.unknownTool(identity, request.name);
    }

    if (tool.source.type === 'function') {
      return this.reject(identity, tool, rawArguments, toolCall, 'refused', record, {
        status: 'invalid',
        message: `Tool '${tool.name}' is a function tool: the client executes it, so it cannot be run here`,
        param: 'name',
        code: 'client_executed_tool',
      });
    }
    const args = this.validArguments(tool, rawArguments);
    if ('invalid' in args)
      return args.audited
        ? this.reject(identity, tool, rawArguments, toolCall, 'invalid', record, args.invalid)
        : args.invalid;

    const guarded = { identity, tool, arguments: args.value, chain: chainOf(identity, request) };
    const verdict = await this.guard?.checkArguments(guarded);
    if (verdict && !verdict.allowed) {
      const refusal = { allowed: false, status: 'denied', code: verdict.code, reason: verdict.message } as const;
      return this.refuse(identity, tool, verdict.audited, toolCall, refusal, verdict.findings, record);
    }
    const callArguments = verdict ? verdict.arguments : args.value;
    const auditedArguments = verdict ? verdict.audited : args.value;
    const findings = verdict ? [...verdict.findings] : [];

    // Last, so that only a call that is going to run takes a slot. A retry is the same call, counted once, where
    // its record shows the state spent; an unaudited tool's retry has none and counts as a call of its own.
    if (resume?.auditRecord === undefined) {
      const slot = await this.policy.takeRateLimitSlot(identity, tool);
      if (!slot.allowed) return this.refuse(identity, tool, auditedArguments, toolCall, slot, findings);
    }

    record ??= await this.audit?.start({ identity, tool, arguments: auditedArguments, toolCall });
    const started = performance.now() - (resume?.elapsedMs ?? 0);
    options.onStart?.({ ...toolCall });
    const end = await this.execute(identity, tool, toolCall, callArguments, request, options);
    if (end.status === 'input_required') {
      const elapsedMs = performance.now() - started;
      if (record !== undefined)
        await this.audit?.awaitInput(record, {
          identity,
          tool,
          arguments: auditedArguments,
          toolCall: finish(toolCall, 'in_progress', null, null, elapsedMs),
          findings,
        });
      return {
        status: 'input_required',
        toolCall,
        inputRequests: end.inputRequired.inputRequests,
        resumption: {
          toolCall: { id: toolCall.id, call_id: toolCall.call_id, created_at: toolCall.created_at },
          auditRecord: record,
          elapsedMs,
          rounds: (resume?.rounds ?? 0) + 1,
          requestState: end.inputRequired.requestState,
        },
      };
    }
    if (end.payload && this.guard) {
      const checked = await this.guard.checkResult(guarded, end.payload);
      end.payload = checked.payload;
      findings.push(...checked.findings);
    }
    const done = {
      ...finish(
        toolCall,
        end.status,
        end.payload ? outputOf(end.payload) : null,
        end.error,
        performance.now() - started,
      ),
      ...metadataOf(end.injectionSuspected === true, findings),
    };
    this.metrics.duration.observe({ tool_name: tool.name, source: tool.source.type }, (done.duration_ms ?? 0) / 1000);
    if (record !== undefined)
      await this.audit?.finish(record, { identity, tool, arguments: auditedArguments, toolCall: done, findings });
    this.metrics.calls.inc({ tool_name: tool.name, source: tool.source.type, status: done.status });
    return answered(done, end.payload);
  }

  /** The caller's effective tools (for definitions and "did you mean"). */
  effectiveTools(identity: Identity, requested?: string[]): Promise<ResolvedTool[]> {
    return this.policy.effectiveTools(identity, requested);
  }

  beforeApplicationShutdown(): void {
    this.shutdown.abort();
  }

  /** A new tool_call, or the one of the call a retry resumes. */
  private newToolCall(request: InvokeRequest, resume?: Resumption): ToolCallObject {
    const id = resume?.toolCall.id ?? newId('call_');
    return {
      id,
      object: 'tool_call',
      call_id: resume?.toolCall.call_id ?? request.callId ?? id,
      name: request.name,
      status: 'in_progress',
      output: null,
      error: null,
      duration_ms: null,
      created_at: resume?.toolCall.created_at ?? unixSeconds(this.clock.now()),
      response_id: request.responseId ?? null,
    };
  }

  /** Suggestions come from the caller's own effective tools only; a disabled built-in is named as such. */
  private async unknownTool(identity: Identity, name: string): Promise<CallResult> {
    const known = (await this.policy.effectiveTools(identity)).map((t) => t.name);
    return { status: 'unknown_tool', message: unknownToolMessage(name, known, this.config) };
  }

  /**
   * The parsed arguments, or why they do not fit the tool's schema. Arguments nested too deep are refused
   * as a request body would be, unaudited: the audit redactor would have to walk them.
   */
  private validArguments(
    tool: ResolvedTool,
    raw: unknown,
  ): { value: unknown } | { invalid: Invalid; audited: boolean } {
    let args = raw ?? {};
    if (typeof args === 'string') {
      try {
        args = args.trim() === '' ? {} : JSON.parse(args);
      } catch (error) {
        return { invalid: invalidArguments(`arguments is not valid JSON: ${(error as Error).message}`), audited: true };
      }
      // A string escapes the body's depth check; the parsed value must pass it before validation walks it.
      const maxDepth = this.config.server.max_json_depth;
      const tooDeepAt = findTooDeep(args, maxDepth, 'arguments');
      if (tooDeepAt !== undefined) {
        return {
          invalid: {
            status: 'invalid',
            message: tooDeepMessage(tooDeepAt, maxDepth),
            param: tooDeepAt,
            code: 'nesting_too_deep',
          },
          audited: false,
        };
      }
    }
    const violations = this.schemas.validate(tool.definition.parameters, args);
    if (violations.length > 0) {
      return {
        invalid: invalidArguments(`Invalid arguments for tool '${tool.name}': ${formatViolations(violations)}`),
        audited: true,
      };
    }
    return { value: args };
  }

  private async execute(
    identity: Identity,
    tool: ResolvedTool,
    toolCall: ToolCallObject,
    args: unknown,
    request: InvokeRequest,
    options: InvokeOptions,
  ): Promise<CallEnd> {
    const executor = this.executors.for(tool.source.type);
    if (!executor?.canExecute(tool)) {
      return failure(
        'not_executable',
        `Tool '${tool.name}' cannot run: its ${tool.source.type} source '${tool.origin}' is not available`,
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
      scope: options.scope,
      ...(options.input && {
        input: {
          capabilities: options.input.capabilities,
          responses: options.input.resume?.responses,
          requestState: options.input.resume?.requestState,
        },
      }),
      signal: controller.signal,
      progress: (event) => {
        if (open) options.onProgress?.(event);
      },
    };
    try {
      const result = await runUntilAborted(
        () => executor.execute(tool, { id: toolCall.call_id, name: tool.name, arguments: args }, context),
        controller.signal,
      );
      return this.judgeResult(tool, result, options);
    } catch (error) {
      if (cause === 'timeout') return failure('timeout', `Tool '${tool.name}' did not finish within ${timeoutMs} ms`);
      if (cause === 'client')
        return {
          status: 'cancelled',
          error: { code: 'cancelled', message: 'The client went away; the call was cancelled' },
        };
      if (cause === 'shutdown')
        return {
          status: 'cancelled',
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

  private judgeResult(tool: ResolvedTool, result: Execution, options: InvokeOptions): CallEnd {
    if ('refusal' in result) return failure(result.refusal.code, storableText(result.refusal.message));
    if ('inputRequired' in result) return this.judgeInputRequest(tool, result.inputRequired, options);
    const outcome = this.checkResult(tool, result.payload, result.isError);
    // A flagged result still goes to the caller, marked, whether it succeeded or failed.
    return result.injectionSuspected ? { ...outcome, injectionSuspected: true } : outcome;
  }

  /**
   * A tool's request for the client's input goes back to a caller that can relay it, when the client declared
   * every capability it needs (a server must not ask for more) and the dialogue is not going in circles;
   * otherwise the call fails naming what the tool asked for.
   */
  private judgeInputRequest(tool: ResolvedTool, inputRequired: InputRequired, options: InvokeOptions): CallEnd {
    const needed = capabilitiesNeeded(inputRequired.inputRequests);
    if (!options.input) return failure('input_unavailable', inputUnavailableMessage(tool.name, needed, false));
    const declared = options.input.capabilities;
    const missing = needed.filter((name) => declared[name] === undefined || declared[name] === null);
    if (missing.length > 0) return failure('input_unavailable', inputUnavailableMessage(tool.name, missing, true));
    if ((options.input.resume?.rounds ?? 0) >= MAX_INPUT_ROUNDS)
      return failure(
        'too_many_input_rounds',
        `Tool '${tool.name}' asked for input more than ${MAX_INPUT_ROUNDS} times without finishing; the call was ended`,
      );
    return { status: 'input_required', error: null, inputRequired };
  }

  private checkResult(tool: ResolvedTool, sent: ToolPayload, isError: boolean): EndedCall {
    let output = outputOf(sent);
    // Results often come from remote servers: one nested too deep to walk fails this call, not the process.
    const maxDepth = this.config.server.max_json_depth;
    const tooDeepAt = findTooDeep(output, maxDepth, 'output');
    if (tooDeepAt !== undefined) {
      return failure(
        'result_too_deep',
        `Tool '${tool.name}' returned a result nested more than ${maxDepth} levels deep (at '${tooDeepAt}')`,
      );
    }
    // Stored in the audit trail and in response items as it is passed on: repaired once, here.
    const payload = storableJson(sent);
    if (payload !== sent) output = outputOf(payload);
    if (isError) {
      return {
        status: 'failed',
        payload,
        error: { code: 'tool_error', message: errorMessageOf(payload, tool.name) },
      };
    }
    const returns = tool.definition.returns;
    const violations = returns ? this.schemas.validate(returns, output) : [];
    if (violations.length > 0) {
      return failure(
        'invalid_result',
        `Tool '${tool.name}' returned a result that does not match its result schema: ${formatViolations(violations)}`,
      );
    }
    return { status: 'completed', payload, error: null };
  }

  private timeoutFor(requested: number | undefined): number {
    const { default_timeout, max_timeout } = this.config.tools;
    return Math.min(requested ?? default_timeout, max_timeout);
  }

  /** A call the policy turned away (denied, rate limited): audited, counted, answered with its reason. */
  private async refuse(
    identity: Identity,
    tool: ResolvedTool,
    args: unknown,
    toolCall: ToolCallObject,
    refusal: Extract<Authorization, { allowed: false }>,
    findings: GuardFinding[] = [],
    resumedRecord?: string,
  ): Promise<CallResult> {
    const refused = {
      ...finish(toolCall, refusal.status, null, { code: refusal.code, message: refusal.reason }),
      ...metadataOf(false, findings),
    };
    const outcome = { identity, tool, arguments: args, toolCall: refused, findings };
    // A retry refused (access revoked, a policy) ends the call its first round began, on the same record.
    if (resumedRecord !== undefined) await this.audit?.finish(resumedRecord, outcome);
    else await this.audit?.record(outcome);
    this.metrics.calls.inc({ tool_name: tool.name, source: tool.source.type, status: refused.status });
    if (refusal.status === 'rate_limited')
      return { status: 'rate_limited', toolCall: refused, retryAfterSeconds: refusal.retryAfterSeconds ?? 1 };
    return { status: 'denied', toolCall: refused };
  }

  /** A call that cannot run as asked (invalid arguments, a function tool): audited as failed, answered as invalid. */
  private async reject(
    identity: Identity,
    tool: ResolvedTool,
    args: unknown,
    toolCall: ToolCallObject,
    rejection: CallRejection,
    resumedRecord: string | undefined,
    invalid: Invalid,
  ): Promise<CallResult> {
    const failed = finish(toolCall, 'failed', null, { code: invalid.code, message: invalid.message });
    const outcome = { identity, tool, arguments: args, toolCall: failed, rejection };
    if (resumedRecord !== undefined) await this.audit?.finish(resumedRecord, outcome);
    else await this.audit?.record(outcome);
    return invalid;
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

/**
 * Calls of one response run form a chain; outside a response, the calls of one credential (and profile) do,
 * which is how an MCP client's consecutive requests reach the dispatcher.
 */
function chainOf(identity: Identity, request: InvokeRequest): string {
  if (request.responseId) return `response:${request.responseId}`;
  return `caller:${identity.tenantId}:${identity.subject}:${identity.agentProfile ?? ''}`;
}

function metadataOf(injectionSuspected: boolean, findings: GuardFinding[]): Pick<ToolCallObject, 'metadata'> {
  if (!injectionSuspected && findings.length === 0) return {};
  return {
    metadata: {
      ...(injectionSuspected && { injection_suspected: true }),
      ...(findings.length > 0 && { guard_findings: findings }),
    },
  };
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

type Invalid = Extract<CallResult, { status: 'invalid' }>;

function invalidArguments(message: string): Invalid {
  return { status: 'invalid', message, param: 'arguments', code: 'invalid_arguments' };
}

/** How a call that ran ended; `payload` when the tool answered, whether it succeeded or reported an error. */
interface EndedCall {
  status: Extract<ToolCallStatus, 'completed' | 'failed' | 'cancelled'>;
  payload?: ToolPayload;
  error: ToolCallObject['error'];
  injectionSuspected?: boolean;
}

/** An ended call, or one that waits for the client's input, which the caller relays. */
type CallEnd = EndedCall | { status: 'input_required'; error: null; inputRequired: InputRequired };

function failure(code: string, message: string): EndedCall {
  return { status: 'failed', error: { code, message } };
}

function answered(toolCall: ToolCallObject, payload: ToolPayload | undefined): AnsweredCall {
  if (toolCall.status === 'completed') return { status: 'completed', toolCall, payload: payload! };
  if (toolCall.status === 'failed') return { status: 'failed', toolCall, ...(payload && { payload }) };
  return { status: 'cancelled', toolCall };
}

function errorMessageOf(payload: ToolPayload, toolName: string): string {
  if (payload.kind === 'mcp') {
    // MCP error results carry their message as text content.
    const texts = payload.result.content.flatMap((item) => (item.type === 'text' && item.text ? [item.text] : []));
    return texts.length > 0 ? texts.join('\n') : `Tool '${toolName}' reported an error`;
  }
  const output = payload.value;
  if (typeof output === 'string' && output !== '') return output;
  const nested =
    (output as { error?: { message?: unknown }; message?: unknown } | null)?.error?.message ??
    (output as { message?: unknown } | null)?.message;
  return typeof nested === 'string' ? nested : `Tool '${toolName}' reported an error`;
}

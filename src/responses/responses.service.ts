import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Tracing } from '../observability/tracing/tracing';
import { ApiError } from '../common/api-error';
import { Clock } from '../common/clock';
import { newId, randomToken } from '../common/ids';
import { unixSeconds } from '../common/time';
import { AppConfig } from '../config/app-config';
import { BackgroundTasks, RepeatingTask } from '../observability/background';
import type { Identity } from '../tenancy/request-context';
import { CodeInterpreterFiles } from '../tools/builtins/code-interpreter/code-interpreter-files';
import { CallScope } from '../tools/call-scope';
import { ToolDispatcher } from '../tools/invocation/tool-dispatcher';
import { presentingEvents, presentResponse } from './response-presenter';
import { ResponseCancelled, ResponseLease } from './response-lease';
import { NO_EVENTS, ResponseEvents, ResponseLoop, StopResponse } from './response-loop';
import type { ListPage, ListQueryDto } from '../common/list.dto';
import type { ConversationItem, Item, ResponseObject } from './response-object';
import { parseResponseRequest, ResponseRequest } from './response-request';
import { InputFileCheck, LoopTools, resolveLoopTools } from './response-tools';
import { ResponsesMetrics } from './responses.metrics';
import { ResponsesRepository } from './responses.repository';
import { UpstreamModel } from './upstream-model';
import { resolveUpstreamSettings, UpstreamSettings, upstreamModelFor } from './upstream-settings';

/** The service is stopping: its runs end `failed`, saying so. */
const SHUTTING_DOWN = {
  code: 'server_error',
  message: 'The service stopped while the response was running; create it again',
};

/** Everything a response's loop needs, checked and loaded before anything is stored. */
interface PreparedRun {
  identity: Identity;
  request: ResponseRequest;
  upstreamModel: string;
  tools: LoopTools;
  history: ConversationItem[];
  input: ConversationItem[];
  response: ResponseObject;
}

/**
 * POST /v1/responses and what follows from it: checks the request, narrows its tools to the caller's
 * effective set, loads the `previous_response_id` conversation, runs the loop (at once, or in the
 * background under a lease) and stores the outcome. Closes runs whose replica died.
 */
@Injectable()
export class ResponsesService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Responses');
  private readonly settings?: UpstreamSettings;
  private readonly upstream?: UpstreamModel;
  /** This replica's lease owner name. */
  private readonly owner = `replica_${randomToken(12)}`;
  /** Runs of this replica, by response id, so a cancel or shutdown reaches them at once. */
  private readonly running = new Map<string, AbortController>();
  private sweeper?: RepeatingTask;
  /** code_interpreter's Files API side, when that provider is loaded. */
  private codeInterpreterFiles?: CodeInterpreterFiles;

  constructor(
    private readonly config: AppConfig,
    private readonly dispatcher: ToolDispatcher,
    private readonly store: ResponsesRepository,
    private readonly background: BackgroundTasks,
    private readonly metrics: ResponsesMetrics,
    private readonly clock: Clock,
    private readonly moduleRef: ModuleRef,
    tracing: Tracing,
  ) {
    this.settings = resolveUpstreamSettings(config.engine);
    if (this.settings) this.upstream = new UpstreamModel(this.settings, tracing);
  }

  onApplicationBootstrap(): void {
    // Loaded only when builtins.code_interpreter is enabled; a request naming it is refused before this is needed.
    try {
      this.codeInterpreterFiles = this.moduleRef.get(CodeInterpreterFiles, { strict: false });
    } catch {
      this.codeInterpreterFiles = undefined;
    }
    const lease = this.config.engine.background_lease;
    this.sweeper = this.background.every('responses_sweep', lease, () => this.sweep(), { immediately: true });
  }

  async beforeApplicationShutdown(): Promise<void> {
    const sweeping = this.sweeper?.stop();
    for (const run of this.running.values()) run.abort(new StopResponse(SHUTTING_DOWN));
    await sweeping;
  }

  /**
   * Creates a response. Without `background` the loop runs before this returns (its events go to `events`);
   * with it, the queued response is returned at once and the loop runs on.
   */
  async create(
    identity: Identity,
    body: unknown,
    events: ResponseEvents,
    signal: AbortSignal,
  ): Promise<ResponseObject> {
    const request = this.check(parseResponseRequest(body));
    const run: PreparedRun = {
      identity,
      request,
      upstreamModel: upstreamModelFor(this.settings!, request.model),
      tools: await resolveLoopTools(this.dispatcher, identity, request.tools, this.config, this.inputFiles(identity)),
      history: request.previousResponseId
        ? await this.store.history(identity.tenantId, request.previousResponseId)
        : [],
      input: request.input.map((item) => ({ item })),
      response: newResponse(request, this.clock.now()),
    };
    if (request.store) {
      await this.store.create(
        identity.tenantId,
        run.response,
        run.input,
        request.background ? request : null,
        this.owner,
        this.config.engine.background_lease,
        this.clock.now(),
      );
    }
    const abort = new AbortController();
    if (request.background) {
      const queued = presentResponse({ ...run.response }, request.include);
      this.background.run('response_background_run', () => this.execute(run, NO_EVENTS, abort));
      return queued;
    }
    const onClientGone = () => abort.abort(signal.reason);
    signal.addEventListener('abort', onClientGone, { once: true });
    if (signal.aborted) abort.abort(signal.reason);
    try {
      events.send('response.created', { response: presentResponse(run.response, request.include) });
      return presentResponse(await this.execute(run, events, abort), request.include);
    } finally {
      signal.removeEventListener('abort', onClientGone);
    }
  }

  /** Checks a code_interpreter's container.file_ids against the caller's files (400 naming the id otherwise). */
  private inputFiles(identity: Identity): InputFileCheck {
    return async (fileIds, param) => {
      const files = this.codeInterpreterFiles;
      if (fileIds.length === 0 || !files) return [];
      return (await files.check(identity.tenantId, fileIds, param)).map((input) => input.name);
    };
  }

  /**
   * Runs the loop under the response's lease, then records how it ended. What its calls shared (the sandbox of
   * its code_interpreter calls) is released however it ended, before the answer goes out.
   */
  private async execute(run: PreparedRun, events: ResponseEvents, abort: AbortController): Promise<ResponseObject> {
    const { identity, request, response } = run;
    const lease = new ResponseLease(this.store, this.background, this.owner, this.config.engine.background_lease);
    const scope = new CallScope();
    if (request.store) lease.hold(response.id, abort);
    this.running.set(response.id, abort);
    try {
      response.status = 'in_progress';
      if (request.background) await this.store.markInProgress(identity.tenantId, response.id, this.clock.now());
      const presented = presentingEvents(events, request.include);
      presented.send('response.in_progress', { response });
      const loop = new ResponseLoop(
        {
          ...run,
          dispatcher: this.dispatcher,
          upstream: this.upstream!,
          maxIterations: this.config.engine.max_iterations,
          defaultMaxToolCalls: this.config.engine.max_tool_calls,
          maxJsonDepth: this.config.server.max_json_depth,
          events: presented,
          signal: abort.signal,
          scope,
          clock: this.clock,
          onTurn: (outcome, seconds) => this.metrics.upstreamTurn.observe({ outcome }, seconds),
        },
        response,
      );
      const result = await loop.run();
      this.metrics.responses.inc({ status: result.response.status });
      if (request.store) await this.store.finish(identity.tenantId, result.response, result.output, this.clock.now());
      return result.response;
    } finally {
      lease.release();
      this.running.delete(response.id);
      await scope.release();
    }
  }

  async get(identity: Identity, id: string, include: string[]): Promise<ResponseObject> {
    return presentResponse((await this.store.get(identity.tenantId, id)).body, include);
  }

  /** A page of a stored response's input items. */
  inputItems(identity: Identity, id: string, query: ListQueryDto): Promise<ListPage<Item>> {
    return this.store.inputItems(identity.tenantId, id, query);
  }

  async delete(identity: Identity, id: string): Promise<{ id: string; object: 'response'; deleted: true }> {
    this.running.get(id)?.abort(new ResponseCancelled());
    await this.store.delete(identity.tenantId, id);
    return { id, object: 'response', deleted: true };
  }

  /** Cancels a background response that is still queued or running; one already cancelled is answered as it is. */
  async cancel(identity: Identity, id: string): Promise<ResponseObject> {
    const row = await this.store.get(identity.tenantId, id);
    if (!row.background) {
      throw ApiError.invalid('Only responses created with background: true can be cancelled', 'response_id');
    }
    if (row.status === 'cancelled') return row.body;
    if (row.status !== 'queued' && row.status !== 'in_progress') {
      throw ApiError.invalid(
        `Cannot cancel a response that is ${row.status}`,
        'response_id',
        'response_not_cancellable',
      );
    }
    const cancelled = await this.store.cancel(identity.tenantId, id, this.clock.now());
    this.running.get(id)?.abort(new ResponseCancelled());
    return cancelled ?? (await this.store.get(identity.tenantId, id)).body;
  }

  /** 503 while no upstream is configured; combinations OpenAI refuses are refused here too. */
  private check(request: ResponseRequest): ResponseRequest {
    if (!this.settings) {
      throw ApiError.unavailable(
        'The Responses API needs an upstream model: set engine.upstream.url (TOOLGATE_ENGINE__UPSTREAM__URL) to an OpenAI-compatible API',
        'engine_not_configured',
      );
    }
    if (request.background && !request.store) {
      throw ApiError.invalid('background responses must be stored: remove store: false', 'store');
    }
    if (request.background && request.stream) {
      throw ApiError.invalid(
        'background responses are polled with GET /v1/responses/{id}, not streamed',
        'stream',
        'unsupported_value',
      );
    }
    return request;
  }

  /**
   * Closes stored responses whose lease ran out (their replica stopped or lost the database): they end
   * `failed`, and can be created again.
   */
  private async sweep(): Promise<void> {
    const rows = await this.store.failExpired(SHUTTING_DOWN, this.clock.now());
    if (rows.length > 0) this.logger.warn(`Marked ${rows.length} response(s) failed: their replica stopped mid-run`);
  }
}

function newResponse(request: ResponseRequest, now: Date): ResponseObject {
  return {
    id: newId('resp_'),
    object: 'response',
    created_at: unixSeconds(now),
    completed_at: null,
    status: request.background ? 'queued' : 'in_progress',
    background: request.background,
    error: null,
    incomplete_details: null,
    instructions: request.instructions,
    max_output_tokens: request.maxOutputTokens,
    max_tool_calls: request.maxToolCalls,
    model: request.model,
    output: [],
    parallel_tool_calls: request.parallelToolCalls,
    previous_response_id: request.previousResponseId,
    store: request.store,
    temperature: request.temperature,
    text: { format: { type: 'text' } },
    tool_choice: request.toolChoice,
    tools: request.rawTools,
    top_p: request.topP,
    truncation: 'disabled',
    usage: null,
    user: request.user,
    metadata: request.metadata,
  };
}

import { Logger } from '@nestjs/common';
import type { ChatCompletionToolChoiceOption } from 'openai/resources/chat/completions';
import type { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { findTooDeep, storableJson, storableText } from '../common/json-depth';
import { unixSeconds } from '../common/time';
import type { Identity } from '../tenancy/request-context';
import type { CallScope } from '../tools/call-scope';
import type { ToolDispatcher } from '../tools/invocation/tool-dispatcher';
import { toChatMessages } from './chat-messages';
import type { ConversationItem, Item, ResponseObject, ResponseStatus } from './response-object';
import type { ResponseRequest } from './response-request';
import type { LoopTool, LoopTools } from './response-tools';
import { fileCitations, ProducedFile, producedFiles } from './file-citations';
import { CallOutcome, finishedItem, outcomeOf, pendingItem, refusedCallItem, unknownCallItem } from './tool-call-items';
import { UpstreamFailure, UpstreamModel, UpstreamToolCall, UpstreamTurn } from './upstream-model';

/** Where the loop's events go: the SSE stream of a streaming request, or nowhere. */
export interface ResponseEvents {
  send(type: string, payload: Record<string, unknown>): void;
}

export const NO_EVENTS: ResponseEvents = { send: () => undefined };

/**
 * An abort reason that says how the response ends; any other abort (the client went away, a cancel) ends
 * it `cancelled`.
 */
export class StopResponse extends Error {
  constructor(readonly error: { code: string; message: string }) {
    super(error.message);
  }
}

export interface LoopSetup {
  dispatcher: ToolDispatcher;
  upstream: UpstreamModel;
  upstreamModel: string;
  maxIterations: number;
  /** Server-side tool runs per response when the request sets no max_tool_calls (engine.max_tool_calls). */
  defaultMaxToolCalls: number;
  maxJsonDepth: number;
  identity: Identity;
  request: ResponseRequest;
  tools: LoopTools;
  /** Items of the earlier responses in the `previous_response_id` chain, oldest first. */
  history: ConversationItem[];
  /** This request's input items. */
  input: ConversationItem[];
  events: ResponseEvents;
  signal: AbortSignal;
  /** What the response's calls share (one sandbox for its code_interpreter calls). */
  scope?: CallScope;
  clock: Clock;
  /** Told how each upstream turn ended and how long it took (metrics). */
  onTurn?(outcome: 'ok' | 'error', seconds: number): void;
}

export interface LoopResult {
  response: ResponseObject;
  output: ConversationItem[];
}

interface Ending {
  status: ResponseStatus;
  error?: { code: string; message: string };
  incomplete?: string;
}

/**
 * One response: model turn -> server-side tool calls (through the dispatcher) -> next turn, until the model
 * answers without calling a tool, calls a client function (the response ends with its `function_call`
 * items), or a bound is reached. Events follow the Responses streaming protocol; a failure of the upstream
 * ends the response `failed` with an error object, an abort ends it `cancelled` (or as its StopResponse says).
 */
export class ResponseLoop {
  private readonly logger = new Logger('Responses');
  private readonly output: ConversationItem[] = [];
  private serverCalls = 0;
  /** Client function calls of the current turn whose arguments are streaming, by their index in the turn. */
  private readonly streamedCalls = new Map<number, { item: Item; index: number }>();
  private readonly usage = { input: 0, output: 0 };
  /** The container of this response's code_interpreter calls (their shared sandbox), as OpenAI names one. */
  private readonly containerId = newId('cntr_');
  /** Files code_interpreter calls wrote, cited by the next assistant message (container_file_citation). */
  private uncited: ProducedFile[] = [];

  constructor(
    private readonly setup: LoopSetup,
    private readonly response: ResponseObject,
  ) {}

  async run(): Promise<LoopResult> {
    const ending = await this.loop().catch((error: unknown) => this.endingFor(error));
    const response = this.finish(ending);
    const event = {
      completed: 'response.completed',
      failed: 'response.failed',
      incomplete: 'response.incomplete',
      cancelled: 'response.failed',
    }[ending.status as 'completed' | 'failed' | 'incomplete' | 'cancelled'];
    this.send(event, { response });
    return { response, output: this.output };
  }

  private async loop(): Promise<Ending> {
    const { maxIterations, request } = this.setup;
    for (let iteration = 0; iteration < maxIterations; iteration++) {
      const turn = await this.modelTurn(iteration);
      if (turn.finishReason === 'length') return { status: 'incomplete', incomplete: 'max_output_tokens' };
      if (turn.finishReason === 'content_filter') return { status: 'incomplete', incomplete: 'content_filter' };
      if (turn.toolCalls.length === 0) return { status: 'completed' };
      const clientCalls = await this.toolCalls(turn.toolCalls, request.parallelToolCalls, iteration);
      if (this.setup.signal.aborted) return this.stopped();
      if (clientCalls > 0) return { status: 'completed' };
    }
    return { status: 'incomplete', incomplete: 'max_iterations' };
  }

  /** One upstream request; its text streams out as an assistant message. */
  private async modelTurn(iteration: number): Promise<UpstreamTurn> {
    const { request, tools, upstream, signal } = this.setup;
    const messages = toChatMessages(request.instructions, [...this.setup.history, ...this.setup.input, ...this.output]);
    const budgetLeft = this.serverCalls < this.maxToolCalls;
    const chatTools = tools.chatTools(budgetLeft);
    let message: { item: Item; index: number; text: string } | undefined;
    this.streamedCalls.clear();
    const started = performance.now();
    const timed = <T>(promise: Promise<T>) =>
      promise.then(
        (value) => {
          this.setup.onTurn?.('ok', (performance.now() - started) / 1000);
          return value;
        },
        (error: unknown) => {
          this.setup.onTurn?.('error', (performance.now() - started) / 1000);
          throw error;
        },
      );
    const turn = await timed(
      upstream.turn(
        {
          model: this.setup.upstreamModel,
          messages,
          ...(chatTools.length > 0 && {
            tools: chatTools,
            tool_choice: this.toolChoice(iteration),
            parallel_tool_calls: request.parallelToolCalls,
          }),
          ...(request.temperature !== null && { temperature: request.temperature }),
          ...(request.topP !== null && { top_p: request.topP }),
          ...(request.maxOutputTokens !== null && { max_completion_tokens: request.maxOutputTokens }),
          ...(request.user !== null && { user: request.user }),
        },
        signal,
        (delta) => {
          if (!message) message = this.openMessage();
          message.text += delta;
          this.send('response.output_text.delta', {
            item_id: message.item.id,
            output_index: message.index,
            content_index: 0,
            delta,
            logprobs: [],
          });
        },
        (call, delta) => this.streamArguments(call, delta, iteration),
      ),
    );
    if (message) this.closeMessage(message, 'completed');
    this.usage.input += turn.usage.input;
    this.usage.output += turn.usage.output;
    return turn;
  }

  /** The request's max_tool_calls, or the configured default: no response runs tools without a bound. */
  private get maxToolCalls(): number {
    return this.setup.request.maxToolCalls ?? this.setup.defaultMaxToolCalls;
  }

  /**
   * Why a call of this turn may not happen, if it may not: the model's answer is untrusted, so what tool_choice
   * rules out is refused here, not merely asked of the upstream (`none`: no call at all; a named tool on the
   * first turn: that tool only).
   */
  private disallowed(name: string, iteration: number): string | undefined {
    const choice = this.setup.request.toolChoice;
    if (choice === 'none') return "tool_choice is 'none': the call was not run";
    if (iteration > 0 || typeof choice === 'string') return undefined;
    // A choice naming nothing the request offers was sent as `auto`.
    if (this.setup.tools.forcedName(choice) === undefined || this.setup.tools.allows(choice, name)) return undefined;
    return `tool_choice ${JSON.stringify(choice)} does not allow '${name}' on this turn: the call was not run`;
  }

  /**
   * `required` and a named tool apply to the first turn only: after the tools have answered, the model must
   * be free to answer in words, or the loop would never end.
   */
  private toolChoice(iteration: number): ChatCompletionToolChoiceOption {
    const choice = this.setup.request.toolChoice;
    if (choice === 'none') return 'none';
    if (iteration > 0 || choice === 'auto') return 'auto';
    if (choice === 'required') return 'required';
    const name = this.setup.tools.forcedName(choice);
    return name ? { type: 'function', function: { name } } : 'auto';
  }

  private openMessage(): { item: Item; index: number; text: string } {
    const item: Item = { id: newId('msg_'), type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    const index = this.output.length;
    this.output.push({ item });
    this.send('response.output_item.added', { output_index: index, item });
    this.send('response.content_part.added', {
      item_id: item.id,
      output_index: index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
    });
    return { item, index, text: '' };
  }

  private closeMessage(message: { item: Item; index: number; text: string }, status: 'completed' | 'incomplete') {
    // Deltas are passed on as they come (a surrogate pair may be split between two); the whole text is stored.
    const text = storableText(message.text);
    const annotations = fileCitations(text, this.uncited, this.containerId);
    this.uncited = [];
    const part = { type: 'output_text', text, annotations, logprobs: [] };
    const item: Item = { ...message.item, status, content: [part] };
    this.output[message.index] = { item };
    const where = { item_id: item.id, output_index: message.index, content_index: 0 };
    annotations.forEach((annotation, annotation_index) =>
      this.send('response.output_text.annotation.added', { ...where, annotation_index, annotation }),
    );
    this.send('response.output_text.done', { ...where, text, logprobs: [] });
    this.send('response.content_part.done', { ...where, part });
    this.send('response.output_item.done', { output_index: message.index, item });
  }

  /** Records every call of a turn; runs the server-side ones. Answers how many client calls there were. */
  private async toolCalls(calls: UpstreamToolCall[], parallel: boolean, iteration: number): Promise<number> {
    const { tools } = this.setup;
    const runs: { index: number; tool: LoopTool; call: UpstreamToolCall }[] = [];
    let clientCalls = 0;
    for (const call of calls) {
      const tool = tools.get(call.name);
      const refusal = this.disallowed(call.name, iteration);
      if (refusal !== undefined) {
        this.addFinished(
          refusedCallItem(call.name, call.arguments, refusal),
          JSON.stringify({ error: refusal }),
          call.name,
        );
        continue;
      }
      if (tool?.kind === 'client') {
        clientCalls++;
        this.clientCall(call);
        continue;
      }
      const index = this.output.length;
      if (!tool) {
        this.addFinished(
          unknownCallItem(call.name, call.arguments),
          JSON.stringify({ error: `Unknown tool '${call.name}'` }),
          call.name,
        );
        continue;
      }
      const item = pendingItem(tool, call.arguments, this.containerId);
      this.output.push({ item, toolName: tool.name });
      this.send('response.output_item.added', { output_index: index, item });
      this.sendCallProgress(item, index);
      if (this.serverCalls >= this.maxToolCalls) {
        this.complete(index, tool, {
          status: 'failed',
          error: `max_tool_calls (${this.maxToolCalls}) reached: the call was not run`,
        });
        continue;
      }
      this.serverCalls++;
      runs.push({ index, tool, call });
    }
    const run = async ({ index, tool, call }: (typeof runs)[number]) =>
      this.complete(index, tool, await this.dispatch(tool, call, this.output[index].item.id));
    if (parallel) await Promise.all(runs.map(run));
    else for (const entry of runs) await run(entry);
    return clientCalls;
  }

  /**
   * A client function call's arguments stream out as the model writes them: its item opens at the first delta
   * that names a client function. Server-side calls are shown when they run, after the turn.
   */
  private streamArguments(call: UpstreamToolCall, delta: string, iteration: number): void {
    const open = this.streamedCalls.get(call.index);
    if (open) {
      if (delta) this.sendArgumentsDelta(open, delta);
      return;
    }
    if (!call.name || this.setup.tools.get(call.name)?.kind !== 'client') return;
    // Under `none` or a named tool the call may be refused once its whole name is known: it is shown then.
    const choice = this.setup.request.toolChoice;
    if (choice === 'none' || (iteration === 0 && typeof choice !== 'string')) return;
    const opened = this.openClientCall(call);
    if (call.arguments) this.sendArgumentsDelta(opened, call.arguments);
  }

  private openClientCall(call: UpstreamToolCall): { item: Item; index: number } {
    const index = this.output.length;
    const item: Item = {
      id: newId('fc_'),
      type: 'function_call',
      status: 'in_progress',
      call_id: call.id || newId('call_'),
      name: call.name,
      arguments: '',
    };
    this.output.push({ item });
    this.send('response.output_item.added', { output_index: index, item });
    const opened = { item, index };
    this.streamedCalls.set(call.index, opened);
    return opened;
  }

  private sendArgumentsDelta(open: { item: Item; index: number }, delta: string): void {
    this.send('response.function_call_arguments.delta', { item_id: open.item.id, output_index: open.index, delta });
  }

  /** Ends a client function call's item (opened while its arguments streamed, or now). */
  private clientCall(call: UpstreamToolCall): void {
    const opened = this.streamedCalls.get(call.index);
    const { item, index } = opened ?? this.openClientCall(call);
    if (!opened && call.arguments) this.sendArgumentsDelta({ item, index }, call.arguments);
    // A name written over several deltas may not have been complete when the item opened.
    const done: Item = { ...item, status: 'completed', name: call.name, arguments: call.arguments };
    this.send('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: index,
      name: call.name,
      arguments: call.arguments,
    });
    this.output[index] = { item: done };
    this.send('response.output_item.done', { output_index: index, item: done });
  }

  private addFinished(item: Item, toolOutput: string, toolName: string): void {
    const index = this.output.length;
    this.output.push({ item, toolName, toolOutput });
    this.send('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress' } });
    this.send('response.output_item.done', { output_index: index, item });
  }

  /** The `*.in_progress` (and `*.searching`, arguments) events of a server-side call about to run. */
  private sendCallProgress(item: Item, index: number): void {
    const where = { item_id: item.id, output_index: index };
    if (item.type === 'file_search_call') {
      this.send('response.file_search_call.in_progress', where);
      this.send('response.file_search_call.searching', where);
    } else if (item.type === 'web_search_call') {
      this.send('response.web_search_call.in_progress', where);
      this.send('response.web_search_call.searching', where);
    } else if (item.type === 'code_interpreter_call') {
      this.send('response.code_interpreter_call.in_progress', where);
      this.send('response.code_interpreter_call_code.done', { ...where, code: item.code });
      this.send('response.code_interpreter_call.interpreting', where);
    } else {
      this.send('response.mcp_call.in_progress', where);
      this.send('response.mcp_call_arguments.delta', { ...where, delta: item.arguments });
      this.send('response.mcp_call_arguments.done', { ...where, arguments: item.arguments });
    }
  }

  private complete(index: number, tool: LoopTool, outcome: CallOutcome): void {
    const { item, toolOutput } = finishedItem(this.output[index].item, outcome);
    this.output[index] = { item, toolName: tool.name, toolOutput };
    if (item.type === 'code_interpreter_call') this.uncited.push(...producedFiles(outcome));
    const where = { item_id: item.id, output_index: index };
    if (item.type === 'file_search_call') this.send('response.file_search_call.completed', where);
    else if (item.type === 'web_search_call') this.send('response.web_search_call.completed', where);
    else if (item.type === 'code_interpreter_call') this.send('response.code_interpreter_call.completed', where);
    else this.send(outcome.status === 'completed' ? 'response.mcp_call.completed' : 'response.mcp_call.failed', where);
    this.send('response.output_item.done', { output_index: index, item });
  }

  /** Runs one server-side call through the dispatcher; a refusal becomes a failed call the model is told about. */
  private async dispatch(tool: LoopTool, call: UpstreamToolCall, itemId: string): Promise<CallOutcome> {
    const { dispatcher, identity, signal, scope } = this.setup;
    let args: unknown = call.arguments;
    if (tool.fixedArguments) {
      const parsed = this.parseArguments(call.arguments);
      if ('error' in parsed) return { status: 'failed', error: parsed.error };
      args = { ...parsed.value, ...tool.fixedArguments };
    }
    const result = await dispatcher.invoke(
      identity,
      { name: tool.catalogName!, arguments: args, callId: call.id || itemId, responseId: this.response.id },
      { signal, scope },
    );
    return outcomeOf(result);
  }

  private parseArguments(text: string): { value: Record<string, unknown> } | { error: string } {
    let value: unknown;
    try {
      value = text.trim() === '' ? {} : JSON.parse(text);
    } catch (error) {
      return { error: `arguments is not valid JSON: ${(error as Error).message}` };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { error: 'arguments must be a JSON object' };
    if (findTooDeep(value, this.setup.maxJsonDepth, 'arguments') !== undefined) {
      return { error: `arguments are nested more than ${this.setup.maxJsonDepth} levels deep` };
    }
    // The model's arguments reach the audit trail: what PostgreSQL cannot store is repaired, as in tool results.
    return { value: storableJson(value as Record<string, unknown>) };
  }

  private endingFor(error: unknown): Ending {
    if (this.setup.signal.aborted) return this.stopped();
    if (error instanceof UpstreamFailure)
      return { status: 'failed', error: { code: error.code, message: error.message } };
    this.logger.error({ err: error, response: this.response.id }, 'Response failed');
    return {
      status: 'failed',
      error: { code: 'server_error', message: 'The response failed because of an internal error' },
    };
  }

  private stopped(): Ending {
    const reason: unknown = this.setup.signal.reason;
    return reason instanceof StopResponse ? { status: 'failed', error: reason.error } : { status: 'cancelled' };
  }

  /** The final response object; items still in progress (a cancelled or failed turn) end `incomplete`. */
  private finish(ending: Ending): ResponseObject {
    for (const entry of this.output) {
      if (entry.item.status === 'in_progress') entry.item = { ...entry.item, status: 'incomplete' };
    }
    Object.assign(this.response, {
      status: ending.status,
      completed_at: ending.status === 'completed' ? unixSeconds(this.setup.clock.now()) : null,
      error: ending.error ?? null,
      incomplete_details: ending.incomplete ? { reason: ending.incomplete } : null,
      output: this.output.map((entry) => entry.item),
      usage: {
        input_tokens: this.usage.input,
        input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
        output_tokens: this.usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: this.usage.input + this.usage.output,
      },
    });
    return this.response;
  }

  private send(type: string, payload: Record<string, unknown>): void {
    this.setup.events.send(type, payload);
  }
}

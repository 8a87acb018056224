import OpenAI from 'openai';
import { traceModelTurn } from '../observability/tracing/tool-call-spans';
import { Tracing } from '../observability/tracing/tracing';
import { AnswerTooLargeError, cappedFetch } from '../common/capped-stream';
import { storableText } from '../common/json-depth';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { UpstreamSettings } from './upstream-settings';

/** One tool call of a model turn, put together from its deltas. */
export interface UpstreamToolCall {
  /** The call's `index` in the turn. */
  index: number;
  id: string;
  name: string;
  arguments: string;
}

export interface UpstreamTurn {
  text: string;
  toolCalls: UpstreamToolCall[];
  finishReason: string | null;
  usage: { input: number; output: number };
}

/** Why a turn failed, in words that may be shown to the client: never the upstream's own body or headers. */
export class UpstreamFailure extends Error {
  constructor(
    readonly code: 'server_error' | 'rate_limit_exceeded' | 'invalid_prompt',
    message: string,
  ) {
    super(message);
  }
}

/** A model's answer is untrusted: these bound what one turn may accumulate. */
const MAX_TURN_CHARS = 4_000_000;
/** No chunk of a legitimate answer comes near it; a longer line fails the turn as soon as it is this long. */
const MAX_LINE_BYTES = MAX_TURN_CHARS;
const MAX_TOOL_CALLS_PER_TURN = 128;

/**
 * The upstream model, driven through streaming Chat Completions with the `openai` client: text deltas are
 * handed on as they arrive; tool call deltas are accumulated by their `index` (the first carries id and
 * name, later ones append arguments), so calls split over many chunks and parallel calls come out whole.
 */
export class UpstreamModel {
  private readonly client: OpenAI;

  constructor(
    private readonly settings: UpstreamSettings,
    private readonly tracing: Tracing,
  ) {
    this.client = new OpenAI({
      baseURL: settings.url,
      // Without a key no Authorization header is sent at all.
      apiKey: settings.apiKey ?? 'unused',
      ...(settings.apiKey === undefined && { defaultHeaders: { Authorization: null } }),
      maxRetries: 0,
      timeout: settings.timeoutMs,
      // The client would print unreadable upstream chunks on stderr; what the upstream sent is not logged.
      logLevel: 'off',
      // The client's stream decoder rescans its whole buffer for each chunk: fed whole events, and never one
      // longer than the cap, it reads an answer in linear time.
      fetch: tracing.propagatingFetch(cappedFetch(globalThis.fetch, MAX_LINE_BYTES)),
    });
  }

  turn(
    params: Omit<ChatCompletionCreateParamsStreaming, 'stream' | 'stream_options'>,
    signal: AbortSignal,
    onText: (delta: string) => void,
    onArguments: (call: UpstreamToolCall, delta: string) => void = () => undefined,
  ): Promise<UpstreamTurn> {
    return traceModelTurn(this.tracing, params.model, () => this.stream(params, signal, onText, onArguments));
  }

  private async stream(
    params: Omit<ChatCompletionCreateParamsStreaming, 'stream' | 'stream_options'>,
    signal: AbortSignal,
    onText: (delta: string) => void,
    onArguments: (call: UpstreamToolCall, delta: string) => void,
  ): Promise<UpstreamTurn> {
    const result: UpstreamTurn = { text: '', toolCalls: [], finishReason: null, usage: { input: 0, output: 0 } };
    const calls = new Map<number, UpstreamToolCall>();
    let size = 0;
    try {
      const stream = await this.client.chat.completions.create(
        { ...params, stream: true, stream_options: { include_usage: true } },
        { signal },
      );
      for await (const chunk of stream) {
        if (chunk.usage) result.usage = { input: chunk.usage.prompt_tokens, output: chunk.usage.completion_tokens };
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = choice.delta ?? {};
        if (typeof delta.content === 'string' && delta.content !== '') {
          size += delta.content.length;
          result.text += delta.content;
          onText(delta.content);
        }
        for (const call of delta.tool_calls ?? []) {
          const { call: whole, size: added } = accumulate(calls, call);
          size += added;
          onArguments(whole, call.function?.arguments ?? '');
        }
        if (size > MAX_TURN_CHARS) {
          throw new UpstreamFailure(
            'server_error',
            `The upstream model's answer exceeded ${MAX_TURN_CHARS} characters`,
          );
        }
        if (choice.finish_reason) result.finishReason = choice.finish_reason;
      }
      // The client ends its iteration quietly on abort; a cut-short turn must not pass for a whole one.
      if (signal.aborted) throw signal.reason;
      // Every complete answer ends with a finish_reason; a stream that stops before it was cut off.
      if (result.finishReason === null) {
        throw new UpstreamFailure('server_error', "The upstream model's answer ended before it was complete");
      }
    } catch (error) {
      throw describe(error, signal, this.settings.timeoutMs);
    }
    // Stored as items: what PostgreSQL cannot store is repaired once the whole call is known.
    result.toolCalls = [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({ ...call, name: storableText(call.name), arguments: storableText(call.arguments) }));
    return result;
  }
}

type ToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

function accumulate(
  calls: Map<number, UpstreamToolCall>,
  delta: ToolCallDelta,
): { call: UpstreamToolCall; size: number } {
  const index = typeof delta.index === 'number' ? delta.index : calls.size;
  let call = calls.get(index);
  if (!call) {
    if (calls.size >= MAX_TOOL_CALLS_PER_TURN) {
      throw new UpstreamFailure(
        'server_error',
        `The upstream model asked for more than ${MAX_TOOL_CALLS_PER_TURN} tool calls at once`,
      );
    }
    call = { index, id: '', name: '', arguments: '' };
    calls.set(index, call);
  }
  if (delta.id) call.id = delta.id;
  if (delta.function?.name) call.name += delta.function.name;
  if (delta.function?.arguments) call.arguments += delta.function.arguments;
  return { call, size: (delta.function?.name?.length ?? 0) + (delta.function?.arguments?.length ?? 0) };
}

/** A client-facing description of an upstream failure; what the upstream said stays out of it. */
function describe(error: unknown, signal: AbortSignal, timeoutMs: number): Error {
  if (error instanceof UpstreamFailure || signal.aborted) return error as Error;
  if (error instanceof AnswerTooLargeError) {
    return new UpstreamFailure(
      'server_error',
      error.what === 'event'
        ? `The upstream model sent a streamed line longer than ${error.limit} bytes`
        : `The upstream model's answer exceeded ${error.limit} bytes`,
    );
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new UpstreamFailure('server_error', `The upstream model did not answer within ${timeoutMs} ms`);
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new UpstreamFailure('server_error', 'The upstream model could not be reached');
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    if (error.status === 429)
      return new UpstreamFailure('rate_limit_exceeded', 'The upstream model is rate limited (HTTP 429)');
    if (error.status === 400)
      return new UpstreamFailure('invalid_prompt', 'The upstream model refused the request (HTTP 400)');
    return new UpstreamFailure('server_error', `The upstream model answered HTTP ${error.status}`);
  }
  return new UpstreamFailure('server_error', 'The upstream model sent an answer that could not be read');
}

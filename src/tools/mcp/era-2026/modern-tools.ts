import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { INPUT_REQUEST_METHODS, InputRequestMethod } from '../../../common/mcp-2026';
import type { InputRequest, InputRequired } from '../../tool-executor';
import { ModernRequestOptions, ModernUpstream, UpstreamProtocolError } from './modern-upstream';

/** More input requests than this in one answer is not a dialogue a client can hold: the answer is refused. */
const MAX_INPUT_REQUESTS = 32;
/** The longest request key and server state relayed to the client (the state comes back sealed in ours). */
const MAX_INPUT_KEY_CHARS = 256;
const MAX_REQUEST_STATE_CHARS = 65_536;

/** One page of a modern server's tools, each still unchecked (as listToolsPage does for the SDK path). */
export async function listModernToolsPage(
  upstream: ModernUpstream,
  cursor: string | undefined,
  signal: AbortSignal,
): Promise<{ tools: unknown[]; nextCursor?: string }> {
  const result = await upstream.request('tools/list', cursor ? { cursor } : {}, { signal });
  complete(upstream, result, 'tools/list');
  if (!Array.isArray(result.tools))
    throw new UpstreamProtocolError(`MCP source '${upstream.sourceName}' answered tools/list without a tools array`);
  const next = result.nextCursor;
  return { tools: result.tools, ...(typeof next === 'string' && next !== '' && { nextCursor: next }) };
}

export interface ModernCall {
  name: string;
  arguments: Record<string, unknown>;
  /** A retry's answers to the server's input requests and its state, sent back as the client gave them. */
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

/** The server's answer to tools/call: the tool's result, or its request for the client's input. */
export type ModernCallAnswer = { result: CallToolResult } | { inputRequired: InputRequired };

/** tools/call on a modern server; `resultType` tells a final result from a request for input. */
export async function callModernTool(
  upstream: ModernUpstream,
  call: ModernCall,
  options: ModernRequestOptions,
): Promise<ModernCallAnswer> {
  const params = {
    name: call.name,
    arguments: call.arguments,
    ...(call.inputResponses && { inputResponses: call.inputResponses }),
    ...(call.requestState !== undefined && { requestState: call.requestState }),
  };
  const result = await upstream.request('tools/call', params, options);
  if (result.resultType === 'input_required') return { inputRequired: inputRequiredOf(upstream, result) };
  complete(upstream, result, 'tools/call');
  const { resultType: _resultType, ...rest } = result;
  const parsed = CallToolResultSchema.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UpstreamProtocolError(
      `MCP source '${upstream.sourceName}' answered tools/call with an invalid result (${issue.path.join('.') || 'result'}: ${issue.message})`,
    );
  }
  return { result: parsed.data };
}

/** An absent resultType is `complete` (results of earlier revisions); any other than these two is not understood. */
function complete(upstream: ModernUpstream, result: Record<string, unknown>, method: string): void {
  const type = result.resultType;
  if (type === undefined || type === 'complete') return;
  throw new UpstreamProtocolError(
    `MCP source '${upstream.sourceName}' answered ${method} with resultType '${String(type).slice(0, 64)}', which this gateway does not handle`,
  );
}

/**
 * An InputRequiredResult as the server sent it, checked before any of it is relayed: each request one of the
 * three the revision allows (elicitation/create, sampling/createMessage, roots/list) with an object of
 * params, a bounded number of them, the state a bounded string, and at least one of the two present.
 */
function inputRequiredOf(upstream: ModernUpstream, result: Record<string, unknown>): InputRequired {
  const refuse = (why: string) =>
    new UpstreamProtocolError(`MCP source '${upstream.sourceName}' asked for input with ${why}`);
  const { inputRequests, requestState } = result;
  if (requestState !== undefined && (typeof requestState !== 'string' || requestState.length > MAX_REQUEST_STATE_CHARS))
    throw refuse(`a requestState that is not a string of at most ${MAX_REQUEST_STATE_CHARS} characters`);
  let requests: Record<string, InputRequest> | undefined;
  if (inputRequests !== undefined) {
    if (inputRequests === null || typeof inputRequests !== 'object' || Array.isArray(inputRequests))
      throw refuse('inputRequests that is not an object');
    const entries = Object.entries(inputRequests as Record<string, unknown>);
    if (entries.length > MAX_INPUT_REQUESTS) throw refuse(`more than ${MAX_INPUT_REQUESTS} input requests`);
    requests = {};
    for (const [key, request] of entries) {
      if (key.length > MAX_INPUT_KEY_CHARS) throw refuse(`an input request key over ${MAX_INPUT_KEY_CHARS} characters`);
      const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
      if (typeof method !== 'string' || !(INPUT_REQUEST_METHODS as readonly string[]).includes(method))
        throw refuse(
          `an input request '${key.slice(0, 64)}' whose method is not one of ${INPUT_REQUEST_METHODS.join(', ')}`,
        );
      if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params)))
        throw refuse(`an input request '${key.slice(0, 64)}' whose params are not an object`);
      requests[key] = { method: method as InputRequestMethod, params: (params ?? {}) as Record<string, unknown> };
    }
  }
  if (requests === undefined && requestState === undefined) throw refuse('neither inputRequests nor requestState');
  return {
    ...(requests && { inputRequests: requests }),
    ...(requestState !== undefined && { requestState }),
  };
}

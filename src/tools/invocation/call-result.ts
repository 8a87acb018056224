import type { InputRequest, ToolPayload } from '../tool-executor';
import type { ToolCallObject } from './tool-call';

/**
 * How the dispatcher answers a call, for each surface (REST, SSE, /mcp, /v1/responses) to present in its
 * own terms. Calls that got a tool_call carry it (it is what was audited); `invalid` and `unknown_tool`
 * are refused before one exists for the caller.
 */
export type CallResult =
  | { status: 'completed'; toolCall: ToolCallObject; payload: ToolPayload }
  /** `payload` is what the tool returned when it reported the error itself (`tool_error`). */
  | { status: 'failed'; toolCall: ToolCallObject; payload?: ToolPayload }
  | { status: 'denied' | 'cancelled'; toolCall: ToolCallObject }
  | { status: 'rate_limited'; toolCall: ToolCallObject; retryAfterSeconds: number }
  /** The call cannot run as asked: arguments that do not fit, a function tool the client executes. */
  | { status: 'invalid'; code: string; message: string; param: string }
  | { status: 'unknown_tool'; message: string }
  /**
   * Only for a caller that relays input requests (InvokeOptions.input): the tool waits for the client's input;
   * the retry carrying it resumes the call with `resumption`, which the caller must keep from tampering.
   */
  | {
      status: 'input_required';
      toolCall: ToolCallObject;
      inputRequests?: Record<string, InputRequest>;
      resumption: Resumption;
    };

/** What a retry needs to continue a call that waits for input: the same call, record and upstream state. */
export interface Resumption {
  toolCall: Pick<ToolCallObject, 'id' | 'call_id' | 'created_at'>;
  /** The call's audit record (absent when the tool is not audited). */
  auditRecord?: string;
  /** Time the call ran in its earlier rounds, added to its duration. */
  elapsedMs: number;
  /** How many times the tool has asked for input so far. */
  rounds: number;
  /** The tool's own state, to be sent back with the client's answers. */
  requestState?: string;
}

/** The outcomes that ended with a tool_call object. */
export type AnsweredCall = Exclude<Extract<CallResult, { toolCall: ToolCallObject }>, { status: 'input_required' }>;

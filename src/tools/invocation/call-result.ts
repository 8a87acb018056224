import type { ToolPayload } from '../tool-executor';
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
  | { status: 'unknown_tool'; message: string };

/** The outcomes that ended with a tool_call object. */
export type AnsweredCall = Extract<CallResult, { toolCall: ToolCallObject }>;

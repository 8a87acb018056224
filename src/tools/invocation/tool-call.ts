import type { GuardFinding } from './call-guard';

export type ToolCallStatus = 'in_progress' | 'completed' | 'failed' | 'denied' | 'rate_limited' | 'cancelled';

/** The `tool_call` object answered by /v1/tool_calls and streamed in its events. */
export interface ToolCallObject {
  id: string;
  object: 'tool_call';
  call_id: string;
  name: string;
  status: ToolCallStatus;
  output: unknown;
  error: { code: string; message: string } | null;
  duration_ms: number | null;
  created_at: number;
  response_id: string | null;
  /**
   * Present when there is something to say about the call: `injection_suspected` (output scanning),
   * `guard_findings` (secrets and policies at call time, by kind and path, never by value).
   */
  metadata?: { injection_suspected?: boolean; guard_findings?: GuardFinding[] };
}

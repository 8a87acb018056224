/**
 * The Responses API objects as Toolgate answers them (the shapes of the `openai` SDK's `Response`,
 * `ResponseItem` and stream events). Items are plain JSON: they are stored and answered as they are.
 */

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'incomplete';

export const TERMINAL_STATUSES: readonly ResponseStatus[] = ['completed', 'failed', 'cancelled', 'incomplete'];

/** Any input or output item: `message`, `function_call`, `function_call_output`, `file_search_call`, ... */
export type Item = { id: string; type: string } & Record<string, unknown>;

/**
 * An item with what the upstream model saw of it: for a server-side tool call, the function name it called
 * and the output it was given. Client items (messages, function calls and their outputs) need neither.
 */
export interface ConversationItem {
  item: Item;
  toolName?: string;
  toolOutput?: string;
}

export interface ResponseError {
  code: string;
  message: string;
}

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  completed_at: number | null;
  status: ResponseStatus;
  background: boolean;
  error: ResponseError | null;
  incomplete_details: { reason: string } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  max_tool_calls: number | null;
  model: string;
  output: Item[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  store: boolean;
  temperature: number | null;
  text: { format: { type: 'text' } };
  tool_choice: unknown;
  tools: Record<string, unknown>[];
  top_p: number | null;
  truncation: 'disabled';
  usage: ResponseUsage | null;
  user: string | null;
  metadata: Record<string, string>;
}

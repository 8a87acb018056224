/**
 * The one execution contract. Everything that can run a tool (built-in providers through the
 * FunctionRegistry, MCP servers, sandboxes) is a ToolExecutor; ToolDispatcher is the only caller.
 */

/** JSON Schema as plain data (draft-07 or 2020-12). */
export type JsonSchema = Record<string, unknown>;

/** One entry of an MCP tool's `icons`. */
export interface McpToolIcon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
  /** JSON Schema of the output, where the tool declares one; results are checked against it. */
  returns?: JsonSchema;
  /** The output schema shown to MCP clients when it differs from `returns` (MCP tools: of structuredContent). */
  outputSchema?: JsonSchema;
  /** MCP-style hints (readOnlyHint, destructiveHint, ...), passed through to clients. */
  annotations?: Record<string, unknown>;
  /** MCP tool icons, passed through to MCP clients. */
  icons?: McpToolIcon[];
  /** Key in the calling tenant's credential store this tool needs (becomes `source.credential_key`). */
  credentialKey?: string;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed JSON arguments. */
  arguments: unknown;
}

export interface ToolResult {
  callId: string;
  output: unknown;
  isError: boolean;
  metadata?: Record<string, unknown>;
  /** Set when the executor refused to send the call (the tool changed under it): the call fails with this code. */
  refusal?: { code: string; message: string };
}

export interface ToolContext {
  tenantId: string;
  userId?: string;
  agentProfile?: string;
  responseId?: string;
  /** Fires when the client goes away, the call times out or the service shuts down. */
  signal: AbortSignal;
  /** Streams metadata to the caller while the tool runs (delivered in order). */
  progress(event: Record<string, unknown>): void;
  /** The calling tenant's credential named by the tool's `source.credential_key`, resolved at execution time. */
  credential?: { key: string; value: string };
}

/** A catalog tool's `source.type`: who runs it. */
export type ExecutorKind = 'builtin' | 'mcp' | 'sandbox' | 'function';

export interface ToolExecutor {
  canExecute(name: string): boolean;
  execute(call: ToolCall, ctx: ToolContext): Promise<ToolResult>;
}

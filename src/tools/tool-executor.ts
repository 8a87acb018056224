import { DiscoveryService } from '@nestjs/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallScope } from './call-scope';
import type { InputRequestMethod } from '../common/mcp-2026';

/**
 * The one execution contract. Everything that can run a tool (built-in providers through the
 * FunctionRegistry, MCP servers, sandboxes) is a ToolExecutor, marked `@ToolExecutorFor(<source.type>)`;
 * ToolDispatcher is the only caller.
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

/** What a built-in provider answers. */
export interface ToolResult {
  callId: string;
  output: unknown;
  isError: boolean;
  metadata?: Record<string, unknown>;
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
  /** What the calls of the same run share (a /v1/responses run's sandbox); absent for a call on its own. */
  scope?: CallScope;
  /**
   * Set when the caller can answer a tool's requests for input (an MCP 2026-07-28 client): what it declared it
   * can do, and on a retry its answers. Without it the tool is told the client can give no input.
   */
  input?: ClientInput;
}

/** A request an upstream MCP server makes of the client in the middle of a call (Multi Round-Trip Requests). */
export interface InputRequest {
  method: InputRequestMethod;
  params: Record<string, unknown>;
}

/** The tool cannot finish without the client's input: what it asks, and its state to be sent back with the answers. */
export interface InputRequired {
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
}

/** What the calling client can give a tool that asks for input, and what it gave on a retry. */
export interface ClientInput {
  /** The client's capabilities as it declared them on this request (elicitation, sampling, roots). */
  capabilities: Record<string, unknown>;
  /** A retry's answers, keyed as the tool's input requests were, and the tool's own state, as it sent them. */
  responses?: Record<string, unknown>;
  requestState?: string;
}

/** A catalog tool's `source.type`: who runs it. */
export type ExecutorKind = 'builtin' | 'mcp' | 'sandbox' | 'function';

/** The catalog's record of where a tool comes from (its `source`), as the executor of that type reads it. */
export interface ToolSourceDescriptor {
  type: ExecutorKind;
  /** Built-in tools: the provider serving them. */
  provider?: string;
  /** MCP tools: the source (server) and the server's own name of the tool. */
  server_name?: string;
  tool_name?: string;
  /** Sandbox tools: the template (prepared environment) and the command run in it. */
  template?: string;
  entrypoint?: string;
  /** Key in the calling tenant's credential store, supplied at execution time. */
  credential_key?: string;
}

/** A tool as its executor gets it: read from the catalog snapshot the call was authorized on. */
export interface ExecutableTool {
  name: string;
  definition: ToolDefinition;
  source: ToolSourceDescriptor;
  /** Scanning of this tool's results when it overrides `catalog.output_scan`. */
  outputScan?: 'off' | 'flag' | 'block';
  /** What the tool was approved to do (network_external, ...): sandboxes grant exactly these. */
  permissions?: string[];
  /** The tenant that registered the tool by hand; absent for tools discovered from their source. */
  registeredBy?: string;
}

/**
 * What a tool returned: an MCP server's result as it was sent (content, structuredContent, _meta), or
 * the JSON value of any other tool.
 */
export type ToolPayload = { kind: 'mcp'; result: CallToolResult } | { kind: 'json'; value: unknown };

/** An executed call: the payload, or the refusal that kept the call from being sent. */
export type Execution =
  | {
      payload: ToolPayload;
      isError: boolean;
      /** Output scanning found text addressed to the model; the result is passed on, marked. */
      injectionSuspected?: boolean;
    }
  /** The call was not sent (the tool changed under it, its result was withheld): it fails with this code. */
  | { refusal: { code: string; message: string } }
  /** The tool asks for the client's input before it can finish (only when the context carries `input`, or refused). */
  | { inputRequired: InputRequired };

export interface ToolExecutor {
  /** Whether this tool can run now (its provider is loaded); the call fails as not executable otherwise. */
  canExecute(tool: ExecutableTool): boolean;
  execute(tool: ExecutableTool, call: ToolCall, ctx: ToolContext): Promise<Execution>;
}

/** Marks the executor of one `source.type`; the dispatcher finds it through Nest's DiscoveryService. */
export const ToolExecutorForMeta = DiscoveryService.createDecorator<ExecutorKind>();

/** `@ToolExecutorFor('mcp')` on the injectable service that runs that source type's tools. */
export const ToolExecutorFor = (kind: ExecutorKind): ClassDecorator => ToolExecutorForMeta(kind);

/** The JSON view of a payload, as /v1/tool_calls answers it: MCP results as `{content, structuredContent}`. */
export function outputOf(payload: ToolPayload): unknown {
  if (payload.kind === 'json') return payload.value;
  const { content, structuredContent } = payload.result;
  return structuredContent === undefined ? { content } : { content, structuredContent };
}

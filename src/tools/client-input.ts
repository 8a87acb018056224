import { CAPABILITY_OF } from '../common/mcp-2026';
import type { InputRequest } from './tool-executor';

const WHAT: Record<string, string> = {
  elicitation: 'elicitation input (a question for the user)',
  sampling: "sampling (a completion from the client's model)",
  roots: "the client's roots",
};

/** The client capabilities (elicitation, sampling, roots) that a tool's input requests need, each once. */
export function capabilitiesNeeded(requests: Record<string, InputRequest> | undefined): string[] {
  return [...new Set(Object.values(requests ?? {}).map((request) => CAPABILITY_OF[request.method]))];
}

/**
 * Why a call that needs the client's input cannot go on, naming what the tool asks for. `canCarry` tells a
 * client whose protocol has no way to answer (MCP 2025-11-25, /v1/tool_calls, /v1/responses) from a
 * 2026-07-28 client that did not declare the capability.
 */
export function inputUnavailableMessage(toolName: string, capabilities: string[], canCarry: boolean): string {
  const asked = capabilities.length > 0 ? capabilities.map((name) => WHAT[name] ?? name).join(' and ') : 'more input';
  if (canCarry)
    return `Tool '${toolName}' asks for ${asked}, which this client did not declare in its clientCapabilities; declare ${capabilities.join(', ') || 'it'} and call again`;
  return `Tool '${toolName}' asks for ${asked}, which this client's protocol cannot carry; use MCP 2026-07-28 at /mcp`;
}

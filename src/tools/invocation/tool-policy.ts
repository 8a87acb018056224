import type { Identity } from '../../tenancy/request-context';
import type { ExecutorKind, ToolDefinition, ToolExecutor } from '../tool-executor';

/** A tool as the dispatcher sees it: what it is, who runs it. */
export interface ResolvedTool {
  name: string;
  definition: ToolDefinition;
  /** Who runs it; absent for client-executed function tools and for sources that are not connected. */
  executor?: ToolExecutor;
  source: ExecutorKind;
  /** The built-in provider or MCP source that serves it. */
  origin: string;
  /** The catalog entry's governance: audit level, rate limit, credential. */
  governance?: ToolGovernance;
}

export interface ToolGovernance {
  toolId: string;
  auditLevel: 'none' | 'basic' | 'full';
  rateLimit: { per_minute?: number; per_hour?: number; per_day?: number } | null;
  credentialKey?: string;
}

export type Authorization =
  | { allowed: true }
  | { allowed: false; status: 'denied' | 'rate_limited'; code: string; reason: string; retryAfterSeconds?: number };

/**
 * Decides which tools a caller sees and may run.
 * The dispatcher depends on this contract only; the catalog supplies the governed implementation.
 */
export abstract class ToolPolicy {
  /** The caller's effective tool set, narrowed to `requested` names when given. */
  abstract effectiveTools(identity: Identity, requested?: string[]): Promise<ResolvedTool[]>;

  /**
   * The tool of that name, whether or not the caller may run it, or undefined when no tool has the name.
   * Access is decided by `authorize`, so that a refused call is answered with its reason.
   */
  abstract resolve(identity: Identity, name: string): Promise<ResolvedTool | undefined>;

  /** Whether the caller may run this tool at all (approval, tenant access). Spends nothing. */
  abstract authorize(identity: Identity, tool: ResolvedTool): Promise<Authorization>;

  /**
   * Counts the call against the tool's rate limit, or refuses it when the window is full. Asked last,
   * for a call that will run, so refused and invalid calls do not use up the caller's allowance.
   */
  abstract takeRateLimitSlot(identity: Identity, tool: ResolvedTool): Promise<Authorization>;
}

import type { Identity } from '../../tenancy/request-context';
import type { ExecutableTool } from '../tool-executor';

/** A tool as the dispatcher sees it: what it is, where it comes from, how it is governed. */
export interface ResolvedTool extends ExecutableTool {
  /** The built-in provider or MCP source that serves it. */
  origin: string;
  /** The catalog entry's governance: audit level, rate limit, credential. */
  governance?: ToolGovernance;
  /** What the catalog says the tool does (`network_external`, `secret_access`, ...), for call-time guards. */
  permissions?: string[];
  tags?: string[];
  /** Scanning of this tool's arguments for secrets when it overrides the catalog defaults. */
  argumentScan?: 'off' | 'flag' | 'block';
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

/** A named tool and whether the caller may run it, both read from one catalog snapshot. */
export interface AuthorizedTool {
  tool: ResolvedTool;
  access: Authorization;
  /**
   * Whether the caller may know the tool exists (it could list it). A refusal of a tool it may not see is
   * answered as an unknown name, so that names of other tenants' tools do not leak; the audit keeps the reason.
   */
  visible: boolean;
}

/**
 * Decides which tools a caller sees and may run. It only authorizes: who executes a tool is the
 * dispatcher's business (by `source.type`).
 * The dispatcher depends on this contract only; the catalog supplies the governed implementation.
 */
export abstract class ToolPolicy {
  /** The caller's effective tool set, narrowed to `requested` names when given. */
  abstract effectiveTools(identity: Identity, requested?: string[]): Promise<ResolvedTool[]>;

  /**
   * The tool of that name with the decision whether the caller may run it at all (approval, tenant
   * access), or undefined when no tool has the name. A refused tool is still returned, so that the
   * refusal is audited with its reason (and answered with it when the tool is visible). Spends nothing.
   */
  abstract authorize(identity: Identity, name: string): Promise<AuthorizedTool | undefined>;

  /**
   * Counts the call against the tool's rate limit, or refuses it when the window is full. Asked last,
   * for a call that will run, so refused and invalid calls do not use up the caller's allowance.
   */
  abstract takeRateLimitSlot(identity: Identity, tool: ResolvedTool): Promise<Authorization>;
}

import type { Identity } from '../../tenancy/request-context';
import type { ToolPayload } from '../tool-executor';
import type { ResolvedTool } from './tool-policy';

/** Something a guard found in a call, named by where it is and what it is, never by its value. */
export interface GuardFinding {
  /** `secret_in_arguments`, `secret_in_result`, `chained_exfiltration` or `policy`. */
  check: string;
  /** What was found: a secret kind (`aws_access_key`, `stored_credential`) or, for policies, the effect. */
  kind: string;
  /** The JSON path (`arguments.body`, `output.content[0].text`); absent for policies over the whole call. */
  path?: string;
  action: 'flagged' | 'blocked' | 'redacted';
  /** Policies: `<policy id>@v<version>`; stored secrets: which one (`credential:github_token`). */
  source?: string;
}

/** One call as the guard reads it. */
export interface GuardedCall {
  identity: Identity;
  tool: ResolvedTool;
  arguments: unknown;
  /** The chain of calls this one belongs to (a response run, or one client's MCP session of calls). */
  chain: string;
}

export type ArgumentVerdict =
  /** `arguments` go to the tool (redacted where a policy says so); `audited` goes to the audit trail. */
  | { allowed: true; arguments: unknown; audited: unknown; findings: GuardFinding[] }
  | { allowed: false; code: string; message: string; audited: unknown; findings: GuardFinding[] };

/**
 * The call-time guard the dispatcher consults: once the arguments are valid (before a rate-limit slot is
 * taken) and once a result is in (before it reaches the caller). The guards module supplies it; without one
 * bound, calls are not guarded.
 */
export abstract class CallGuard {
  abstract checkArguments(call: GuardedCall): Promise<ArgumentVerdict>;
  /** The payload to pass on (redacted where configured) and what was found in it. */
  abstract checkResult(
    call: GuardedCall,
    payload: ToolPayload,
  ): Promise<{ payload: ToolPayload; findings: GuardFinding[] }>;
}

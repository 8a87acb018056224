import type { Identity } from '../../tenancy/request-context';
import type { ToolCallObject } from './tool-call';
import type { ResolvedTool } from './tool-policy';

/** What the dispatcher reports about each call it decided on (run, denied or rate limited). */
export interface ToolCallOutcome {
  identity: Identity;
  tool: ResolvedTool;
  arguments: unknown;
  toolCall: ToolCallObject;
}

/**
 * Where call outcomes are written. The dispatcher awaits `record` before answering, so a record is
 * durable before the caller sees the result. The audit trail supplies the implementation; without
 * one bound, calls are not audited.
 */
export abstract class ToolCallAudit {
  abstract record(outcome: ToolCallOutcome): Promise<void>;
}

import type { GuardFinding } from './call-guard';
import type { Identity } from '../../tenancy/request-context';
import type { ToolCallObject } from './tool-call';
import type { ResolvedTool } from './tool-policy';

/** Calls refused as `invalid` before they could run: arguments that do not fit, a function tool. */
export type CallRejection = 'invalid' | 'refused';

/** What the dispatcher reports about each call it decided on (run, denied, rate limited or rejected). */
export interface ToolCallOutcome {
  identity: Identity;
  tool: ResolvedTool;
  arguments: unknown;
  toolCall: ToolCallObject;
  /** Set when the call was rejected before it could run; `toolCall.error` says why. */
  rejection?: CallRejection;
  /** What the call-time guard found (secrets, policies), by kind and path. */
  findings?: GuardFinding[];
}

/** The record written by `start`, to be completed by `finish`. */
export type StartedRecord = string;

/**
 * Where call outcomes are written. The dispatcher awaits every write before going on, so a record is
 * durable before the caller sees the result, and a call that runs has its record before the tool starts.
 * The audit trail supplies the implementation; without one bound, calls are not audited.
 */
export abstract class ToolCallAudit {
  /** A call that did not run (refused, rate limited, rejected): one record. */
  abstract record(outcome: ToolCallOutcome): Promise<void>;

  /**
   * A call about to run: a `started` record, so a process killed during the call still leaves a trace.
   * Undefined when the tool is not audited.
   */
  abstract start(outcome: ToolCallOutcome): Promise<StartedRecord | undefined>;

  /** Completes the started record with the call's outcome. */
  abstract finish(record: StartedRecord, outcome: ToolCallOutcome): Promise<void>;

  /** The started call waits for its client's input (MCP 2026-07-28): the record says so until a retry resumes it. */
  abstract awaitInput(record: StartedRecord, outcome: ToolCallOutcome): Promise<void>;

  /**
   * A retry takes a waiting record back (it is `started` again): true once; false when it is not waiting (resumed
   * already, finished) or not the tenant's.
   */
  abstract resume(record: StartedRecord, tenantId: string): Promise<boolean>;
}

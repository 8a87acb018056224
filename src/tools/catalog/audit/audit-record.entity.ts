import type { GuardFinding } from '../../invocation/call-guard';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * `started`: the call was sent to the tool and its outcome is unknown (the replica stopped before it
 * finished). `invalid` and `refused` are calls turned away before running: arguments that do not match
 * the schema, a client-executed function tool. `input_required`: the call waits for its MCP 2026-07-28
 * client's input (elicitation, sampling); the client's retry resumes it on the same record.
 */
export const AUDIT_STATUSES = [
  'success',
  'error',
  'rate_limited',
  'denied',
  'cancelled',
  'invalid',
  'refused',
  'started',
  'input_required',
] as const;

export type AuditStatus = (typeof AUDIT_STATUSES)[number];

/** The audit record of one tool call. Input and output are kept only at audit level `full`, redacted. */
@Entity({ name: 'tool_audit_records' })
export class AuditRecordEntity {
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ name: 'timestamp', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @Column({ name: 'agent_id', type: 'varchar', nullable: true })
  agentId: string | null;

  @Column({ name: 'user_id', type: 'varchar', nullable: true })
  userId: string | null;

  @Column({ name: 'tool_id', type: 'varchar', nullable: true })
  toolId: string | null;

  @Column({ name: 'tool_name', type: 'varchar' })
  toolName: string;

  @Column({ name: 'call_id', type: 'varchar' })
  callId: string;

  @Column({ type: 'varchar' })
  status: AuditStatus;

  @Column({ name: 'duration_ms', type: 'double precision', nullable: true })
  durationMs: number | null;

  @Column({ name: 'audit_level', type: 'varchar' })
  auditLevel: 'basic' | 'full';

  @Column({ name: 'input_args', type: 'jsonb', nullable: true })
  inputArgs: object | null;

  @Column({ name: 'output_size', type: 'integer', nullable: true })
  outputSize: number | null;

  @Column({ type: 'text', nullable: true })
  output: string | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** The result read like instructions addressed to the model (output scanning flagged or blocked it). */
  @Column({ name: 'injection_suspected', type: 'boolean' })
  injectionSuspected: boolean;

  /** What the call-time guard found (secret kinds, policies), with paths and never values. */
  @Column({ name: 'guard_findings', type: 'jsonb', nullable: true })
  guardFindings: GuardFinding[] | null;

  @Column({ name: 'response_id', type: 'varchar', nullable: true })
  responseId: string | null;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';

export type AuditStatus = 'success' | 'error' | 'rate_limited' | 'denied' | 'cancelled';

/** Seed 001's ToolAuditRecord. Input and output are kept only at audit level `full`, redacted. */
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

  @Column({ name: 'response_id', type: 'varchar', nullable: true })
  responseId: string | null;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { JsonSchema, McpToolIcon } from '../tool-executor';
import type { EncoderReading } from './review/encoder/encoder-head';
import type { JudgeEvidence, JudgeVerdict } from './review-judge';
import type {
  AuditLevel,
  AutoReviewResult,
  OutputScanMode,
  ArgumentScanMode,
  Permission,
  RateLimit,
  SecurityStatus,
  TenantAccess,
  ToolSource,
} from './catalog.types';

/** The model judge's view of one definition (`content_hash`), kept with the automated review. */
export interface JudgeRecord {
  /** pending: asked or about to be; unavailable: the last attempt failed and is retried on the next review or refresh. */
  status: 'pending' | 'done' | 'unavailable';
  content_hash: string;
  verdict?: JudgeVerdict;
  families?: string[];
  evidence?: JudgeEvidence[];
  error?: string;
  checked_at: string;
  /** The automatic decision (trusted server, source default, auto_approve_score) that waits for the verdict. */
  awaiting?: AwaitedDecision;
}

/** An automatic decision held until a model's verdict on the definition is in. */
export interface AwaitedDecision {
  decision: SecurityStatus;
  reviewer: string;
  notes: string;
}

/** The sentence encoder's view of one definition (`content_hash`), kept with the automated review. */
export interface EncoderRecord {
  /** pending: to be read; unavailable: the last attempt failed and is retried on the next review or refresh. */
  status: 'pending' | 'done' | 'unavailable';
  content_hash: string;
  /** The head's log-odds that the definition is poisoned. */
  logit?: number;
  /** strong or weak past the shipped thresholds; null below them. */
  reading?: EncoderReading;
  error?: string;
  checked_at: string;
  /** The automatic decision that waits for the reading. */
  awaiting?: AwaitedDecision;
}

/** What changed in a pinned tool since its review (MCP re-discovery): old and new definitions. */
export interface PendingChange {
  detected_at: string;
  fields: string[];
  old: Record<string, unknown>;
  new: Record<string, unknown>;
}

@Entity({ name: 'tools' })
export class ToolEntity {
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ type: 'varchar' })
  name: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'jsonb' })
  source: ToolSource;

  @Column({ type: 'jsonb' })
  schema: JsonSchema;

  @Column({ name: 'output_schema', type: 'jsonb', nullable: true })
  outputSchema: JsonSchema | null;

  @Column({ type: 'jsonb', nullable: true })
  annotations: Record<string, unknown> | null;

  /** MCP tool icons, as sanitized at discovery; presentation only, so outside the reviewed content. */
  @Column({ type: 'jsonb', nullable: true })
  icons: McpToolIcon[] | null;

  @Column({ type: 'text', array: true })
  permissions: Permission[];

  @Column({ name: 'security_status', type: 'varchar' })
  securityStatus: SecurityStatus;

  @Column({ type: 'text', array: true })
  tags: string[];

  @Column({ name: 'tenant_access', type: 'jsonb' })
  tenantAccess: TenantAccess;

  @Column({ name: 'audit_level', type: 'varchar' })
  auditLevel: AuditLevel;

  /** Scanning of this tool's results; null follows `catalog.output_scan`. */
  @Column({ name: 'output_scan', type: 'varchar', nullable: true })
  outputScan: OutputScanMode | null;

  /** Scanning of this tool's arguments for secrets; null follows the catalog defaults. */
  @Column({ name: 'argument_scan', type: 'varchar', nullable: true })
  argumentScan: ArgumentScanMode | null;

  @Column({ name: 'rate_limit', type: 'jsonb', nullable: true })
  rateLimit: RateLimit | null;

  @Column({ name: 'owner_tenant_id', type: 'varchar', nullable: true })
  ownerTenantId: string | null;

  @Column({ type: 'boolean' })
  stale: boolean;

  /** Hash of the description and schemas a reviewer last saw; a different hash means "changed since review". */
  @Column({ name: 'reviewed_hash', type: 'varchar', nullable: true })
  reviewedHash: string | null;

  @Column({ name: 'pending_change', type: 'jsonb', nullable: true })
  pendingChange: PendingChange | null;

  @Column({ name: 'auto_review', type: 'jsonb' })
  autoReview: AutoReviewResult & { checked_at: string; judge?: JudgeRecord; encoder?: EncoderRecord };

  @Column({ name: 'reviewed_by', type: 'varchar', nullable: true })
  reviewedBy: string | null;

  @Column({ name: 'reviewed_at', type: 'timestamptz', precision: 3, nullable: true })
  reviewedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}

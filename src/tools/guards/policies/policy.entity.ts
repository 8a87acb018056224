import { Column, Entity, PrimaryColumn } from 'typeorm';

export const POLICY_EFFECTS = ['deny', 'flag', 'redact'] as const;
export type PolicyEffect = (typeof POLICY_EFFECTS)[number];

/** A CEL rule over calls of one tenant: when `condition` holds for a call in scope, `effect` applies. */
@Entity({ name: 'policies' })
export class PolicyEntity {
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @Column({ type: 'varchar' })
  name: string;

  @Column({ type: 'text' })
  description: string;

  /** Only calls made under this agent profile; null: every call of the tenant. */
  @Column({ type: 'varchar', nullable: true })
  profile: string | null;

  /** Tool name patterns (`*` matches any run of characters); empty: every tool. */
  @Column({ type: 'text', array: true })
  tools: string[];

  @Column({ type: 'text' })
  condition: string;

  @Column({ type: 'varchar' })
  effect: PolicyEffect;

  /** Shown to the caller of a denied call. */
  @Column({ type: 'text', nullable: true })
  message: string | null;

  /** `redact`: the argument paths replaced before the tool and the audit trail see them. */
  @Column({ name: 'redact_paths', type: 'text', array: true })
  redactPaths: string[];

  @Column({ type: 'boolean' })
  enabled: boolean;

  /** 1 at creation, one more at every change; audit records name the version that decided. */
  @Column({ type: 'integer' })
  version: number;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}

/** One version of a policy as it was written (or deleted), and by whom. */
@Entity({ name: 'policy_revisions' })
export class PolicyRevisionEntity {
  @PrimaryColumn({ name: 'policy_id', type: 'varchar' })
  policyId: string;

  @PrimaryColumn({ type: 'integer' })
  version: number;

  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @Column({ type: 'varchar' })
  action: 'created' | 'updated' | 'deleted';

  @Column({ type: 'jsonb' })
  rule: object;

  @Column({ name: 'changed_by', type: 'varchar' })
  changedBy: string;

  @Column({ name: 'changed_at', type: 'timestamptz', precision: 3 })
  changedAt: Date;
}

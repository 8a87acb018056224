import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'bundles' })
export class BundleEntity {
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ type: 'varchar' })
  name: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ name: 'tool_ids', type: 'text', array: true })
  toolIds: string[];

  @Column({ type: 'text', array: true })
  tags: string[];

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}

/** A bundle given to a tenant (agent_profile '') or to one agent profile of a tenant. */
@Entity({ name: 'bundle_assignments' })
export class BundleAssignmentEntity {
  @PrimaryColumn({ name: 'bundle_id', type: 'varchar' })
  bundleId: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @PrimaryColumn({ name: 'agent_profile', type: 'varchar' })
  agentProfile: string;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}

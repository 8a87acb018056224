import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'tenant_settings' })
export class TenantSettingsEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @Column({ type: 'jsonb' })
  settings: Record<string, unknown>;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}

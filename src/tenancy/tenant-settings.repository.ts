import { Injectable } from '@nestjs/common';
import { DataSource, Repository } from 'typeorm';
import { TenantSettingsEntity } from './tenant-settings.entity';

/** A tenant's own audit retention, as stored (either field may be unset). */
export interface StoredAuditRetention {
  tenantId: string;
  basic: string | null;
  full: string | null;
}

/** The `tenant_settings` table. */
@Injectable()
export class TenantSettingsRepository {
  private readonly settings: Repository<TenantSettingsEntity>;

  constructor(dataSource: DataSource) {
    this.settings = dataSource.getRepository(TenantSettingsEntity);
  }

  byTenant(tenantId: string): Promise<TenantSettingsEntity | null> {
    return this.settings.findOneBy({ tenantId });
  }

  /**
   * Reads the tenant's row under a row lock, hands it to `change` and stores what that returns, stamped
   * `now`, in one transaction.
   */
  update(
    tenantId: string,
    change: (current: TenantSettingsEntity | null) => Record<string, unknown>,
    now: Date,
  ): Promise<TenantSettingsEntity> {
    return this.settings.manager.transaction(async (manager) => {
      const repo = manager.getRepository(TenantSettingsEntity);
      const current = await repo.findOne({ where: { tenantId }, lock: { mode: 'pessimistic_write' } });
      const entity = repo.create({ tenantId, settings: change(current), updatedAt: now });
      await repo.save(entity);
      return entity;
    });
  }

  /** Every tenant that set its own audit retention. */
  async auditRetentions(): Promise<StoredAuditRetention[]> {
    const rows: { tenant_id: string; basic: string | null; full: string | null }[] = await this.settings.query(
      `SELECT tenant_id, settings->'audit_retention'->>'basic_records' AS basic, settings->'audit_retention'->>'full_records' AS full
         FROM tenant_settings WHERE settings ? 'audit_retention'`,
    );
    return rows.map((row) => ({ tenantId: row.tenant_id, basic: row.basic, full: row.full }));
  }
}

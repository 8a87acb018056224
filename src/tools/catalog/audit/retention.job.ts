import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import ms from 'ms';
import { DataSource } from 'typeorm';
import { Clock } from '../../../common/clock';
import { AppConfig } from '../../../config/app-config';
import { AdvisoryLock, tryWithAdvisoryLock } from '../../../database/advisory-locks';
import { BackgroundTasks, RepeatingTask } from '../../../observability/background';
import { DEFAULT_AUDIT_RETENTION } from '../../../tenancy/tenant-settings.service';
import { RateLimiter } from '../rate-limits/rate-limiter';

/** Rate-limit counters are kept this long after their window starts (the longest window is a day). */
const COUNTER_RETENTION_MS = 2 * 86_400_000;

interface RetentionRule {
  tenantId: string;
  basicMs: number;
  fullMs: number;
}

/**
 * Audit retention: past `full_records`, input and output are stripped from full records;
 * past `basic_records`, records are deleted. Per tenant, from tenant settings, with the defaults for
 * tenants that set nothing. One replica runs it at a time (a non-blocking advisory lock per run).
 */
@Injectable()
export class RetentionJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuditRetention');
  private repeating?: RepeatingTask;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly limiter: RateLimiter,
    private readonly background: BackgroundTasks,
  ) {}

  onApplicationBootstrap(): void {
    this.repeating = this.background.every('audit_retention', this.config.audit.retention_interval, () =>
      this.runOnce(),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.repeating?.stop();
  }

  /** One pass; answers what it did, or undefined when another replica holds the lock. */
  runOnce(): Promise<{ stripped: number; deleted: number } | undefined> {
    return tryWithAdvisoryLock(this.dataSource, AdvisoryLock.auditRetention, () => this.purge(this.dataSource));
  }

  private async purge(db: DataSource): Promise<{ stripped: number; deleted: number }> {
    const now = this.clock.now().getTime();
    const rules = await this.customRules();
    const defaults = {
      basicMs: ms(DEFAULT_AUDIT_RETENTION.basic_records as ms.StringValue),
      fullMs: ms(DEFAULT_AUDIT_RETENTION.full_records as ms.StringValue),
    };
    let stripped = 0;
    let deleted = 0;
    const apply = async (where: string, params: unknown[], rule: { basicMs: number; fullMs: number }) => {
      const strip = await db.query(
        `UPDATE tool_audit_records SET input_args = NULL, output = NULL
          WHERE audit_level = 'full' AND (input_args IS NOT NULL OR output IS NOT NULL) AND "timestamp" < $1 AND ${where}`,
        [new Date(now - rule.fullMs), ...params],
      );
      const drop = await db.query(`DELETE FROM tool_audit_records WHERE "timestamp" < $1 AND ${where}`, [
        new Date(now - rule.basicMs),
        ...params,
      ]);
      stripped += strip[1] ?? 0;
      deleted += drop[1] ?? 0;
    };
    for (const rule of rules) await apply('tenant_id = $2', [rule.tenantId], rule);
    await apply('NOT (tenant_id = ANY($2))', [rules.map((rule) => rule.tenantId)], defaults);
    await this.limiter.purge(new Date(now - COUNTER_RETENTION_MS));
    if (stripped || deleted) this.logger.log(`Stripped ${stripped} full audit records, deleted ${deleted}`);
    return { stripped, deleted };
  }

  private async customRules(): Promise<RetentionRule[]> {
    const rows: { tenant_id: string; basic: string | null; full: string | null }[] = await this.dataSource.query(
      `SELECT tenant_id, settings->'audit_retention'->>'basic_records' AS basic, settings->'audit_retention'->>'full_records' AS full
         FROM tenant_settings WHERE settings ? 'audit_retention'`,
    );
    return rows.map((row) => ({
      tenantId: row.tenant_id,
      basicMs: ms((row.basic ?? DEFAULT_AUDIT_RETENTION.basic_records) as ms.StringValue),
      fullMs: ms((row.full ?? DEFAULT_AUDIT_RETENTION.full_records) as ms.StringValue),
    }));
  }
}

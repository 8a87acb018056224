import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import ms from 'ms';
import { DataSource } from 'typeorm';
import { Clock } from '../../../common/clock';
import { AppConfig } from '../../../config/app-config';
import { AdvisoryLock, tryWithAdvisoryLock } from '../../../database/advisory-locks';
import { BackgroundTasks, RepeatingTask } from '../../../observability/background';
import { DEFAULT_AUDIT_RETENTION, TenantSettingsService } from '../../../tenancy/tenant-settings.service';
import { RateLimiter } from '../rate-limits/rate-limiter';
import { AuditRecordRepository, RetentionScope } from './audit-record.repository';

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
    private readonly records: AuditRecordRepository,
    private readonly tenantSettings: TenantSettingsService,
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
    return tryWithAdvisoryLock(this.dataSource, AdvisoryLock.auditRetention, () => this.purge());
  }

  private async purge(): Promise<{ stripped: number; deleted: number }> {
    const now = this.clock.now().getTime();
    const rules = await this.customRules();
    const defaults = {
      basicMs: ms(DEFAULT_AUDIT_RETENTION.basic_records as ms.StringValue),
      fullMs: ms(DEFAULT_AUDIT_RETENTION.full_records as ms.StringValue),
    };
    let stripped = 0;
    let deleted = 0;
    const apply = async (scope: RetentionScope, rule: { basicMs: number; fullMs: number }) => {
      const done = await this.records.applyRetention(scope, new Date(now - rule.fullMs), new Date(now - rule.basicMs));
      stripped += done.stripped;
      deleted += done.deleted;
    };
    for (const rule of rules) await apply({ tenantId: rule.tenantId }, rule);
    await apply({ exceptTenants: rules.map((rule) => rule.tenantId) }, defaults);
    await this.limiter.purge(new Date(now - COUNTER_RETENTION_MS));
    if (stripped || deleted) this.logger.log(`Stripped ${stripped} full audit records, deleted ${deleted}`);
    return { stripped, deleted };
  }

  private async customRules(): Promise<RetentionRule[]> {
    return (await this.tenantSettings.auditRetentionOverrides()).map((row) => ({
      tenantId: row.tenantId,
      basicMs: ms(row.basic_records as ms.StringValue),
      fullMs: ms(row.full_records as ms.StringValue),
    }));
  }
}

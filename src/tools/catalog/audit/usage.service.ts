import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import type { Identity } from '../../../tenancy/request-context';
import { AuditRecordRepository } from './audit-record.repository';
import type { UsageDto } from './audit.dto';

const PERIODS = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;

/**
 * Per-tool usage statistics, computed in SQL from the audit trail (so tools audited at level `none`
 * have no usage). Members get their own tenant's figures only.
 */
@Injectable()
export class UsageService {
  constructor(
    private readonly records: AuditRecordRepository,
    private readonly clock: Clock,
  ) {}

  async usage(caller: Identity, toolId: string, period: keyof typeof PERIODS = '7d'): Promise<UsageDto> {
    const since = new Date(this.clock.now().getTime() - PERIODS[period]);
    const {
      totals: total,
      byTenant,
      byDay,
    } = await this.records.usage(toolId, since, caller.role === 'admin' ? undefined : caller.tenantId);
    const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;
    return {
      tool_id: toolId,
      period,
      total_invocations: total.total,
      unique_tenants: total.tenants,
      success_rate: round(total.success_rate),
      avg_duration_ms: round(total.avg_ms, 3),
      p99_duration_ms: round(total.p99_ms, 3),
      by_tenant: byTenant.map((row) => ({
        ...row,
        success_rate: round(row.success_rate),
      })),
      by_day: byDay,
    };
  }
}

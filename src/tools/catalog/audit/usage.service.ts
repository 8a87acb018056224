import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../../../common/clock';
import type { Identity } from '../../../tenancy/request-context';
import type { UsageDto } from './audit.dto';

const PERIODS = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;

/** Calls that ran; refusals (denied, rate limited) are not invocations. */
const RAN = `status IN ('success', 'error', 'cancelled')`;

/**
 * Per-tool usage statistics, computed in SQL from the audit trail (so tools audited at level `none`
 * have no usage). Members get their own tenant's figures only.
 */
@Injectable()
export class UsageService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async usage(caller: Identity, toolId: string, period: keyof typeof PERIODS = '7d'): Promise<UsageDto> {
    const since = new Date(this.clock.now().getTime() - PERIODS[period]);
    const params: unknown[] = [toolId, since];
    let scope = `tool_id = $1 AND "timestamp" >= $2 AND ${RAN}`;
    if (caller.role !== 'admin') {
      params.push(caller.tenantId);
      scope += ` AND tenant_id = $3`;
    }
    const [totals, byTenant, byDay] = await Promise.all([
      this.dataSource.query(
        `SELECT count(*)::int AS total, count(DISTINCT tenant_id)::int AS tenants,
                coalesce(avg((status = 'success')::int), 0)::float AS success_rate,
                coalesce(avg(duration_ms), 0)::float AS avg_ms,
                coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY duration_ms), 0)::float AS p99_ms
           FROM tool_audit_records WHERE ${scope}`,
        params,
      ),
      this.dataSource.query(
        `SELECT tenant_id, count(*)::int AS invocations, avg((status = 'success')::int)::float AS success_rate
           FROM tool_audit_records WHERE ${scope} GROUP BY tenant_id ORDER BY invocations DESC, tenant_id`,
        params,
      ),
      this.dataSource.query(
        `SELECT to_char(date_trunc('day', "timestamp" AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS date, count(*)::int AS invocations
           FROM tool_audit_records WHERE ${scope} GROUP BY 1 ORDER BY 1`,
        params,
      ),
    ]);
    const total = totals[0] as { total: number; tenants: number; success_rate: number; avg_ms: number; p99_ms: number };
    const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;
    return {
      tool_id: toolId,
      period,
      total_invocations: total.total,
      unique_tenants: total.tenants,
      success_rate: round(total.success_rate),
      avg_duration_ms: round(total.avg_ms, 3),
      p99_duration_ms: round(total.p99_ms, 3),
      by_tenant: (byTenant as { tenant_id: string; invocations: number; success_rate: number }[]).map((row) => ({
        ...row,
        success_rate: round(row.success_rate),
      })),
      by_day: byDay as { date: string; invocations: number }[],
    };
  }
}

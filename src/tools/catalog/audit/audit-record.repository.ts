import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Which tenants a retention rule covers: one tenant, or every tenant but those with their own rule. */
export type RetentionScope = { tenantId: string } | { exceptTenants: string[] };

export interface UsageRows {
  totals: { total: number; tenants: number; success_rate: number; avg_ms: number; p99_ms: number };
  byTenant: { tenant_id: string; invocations: number; success_rate: number }[];
  byDay: { date: string; invocations: number }[];
}

/** Calls that ran; refusals (denied, rate limited) are not invocations. */
const RAN = `status IN ('success', 'error', 'cancelled')`;

/** The SQL over `tool_audit_records` that the entity mapping cannot express: retention and usage statistics. */
@Injectable()
export class AuditRecordRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Strips input and output of full records older than `fullBefore`, deletes records older than `basicBefore`. */
  async applyRetention(
    scope: RetentionScope,
    fullBefore: Date,
    basicBefore: Date,
  ): Promise<{ stripped: number; deleted: number }> {
    const [where, param] =
      'tenantId' in scope ? ['tenant_id = $2', scope.tenantId] : ['NOT (tenant_id = ANY($2))', scope.exceptTenants];
    const strip: [unknown, number] = await this.dataSource.query(
      `UPDATE tool_audit_records SET input_args = NULL, output = NULL
        WHERE audit_level = 'full' AND (input_args IS NOT NULL OR output IS NOT NULL) AND "timestamp" < $1 AND ${where}`,
      [fullBefore, param],
    );
    const drop: [unknown, number] = await this.dataSource.query(
      `DELETE FROM tool_audit_records WHERE "timestamp" < $1 AND ${where}`,
      [basicBefore, param],
    );
    return { stripped: strip[1] ?? 0, deleted: drop[1] ?? 0 };
  }

  /** Invocations of a tool since a time, for one tenant or all. */
  async usage(toolId: string, since: Date, tenantId?: string): Promise<UsageRows> {
    const params: unknown[] = [toolId, since];
    let scope = `tool_id = $1 AND "timestamp" >= $2 AND ${RAN}`;
    if (tenantId !== undefined) {
      params.push(tenantId);
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
    return { totals: totals[0] as UsageRows['totals'], byTenant, byDay };
  }
}

import { Injectable } from '@nestjs/common';
import { Brackets, DataSource, Repository } from 'typeorm';
import { COMMIT_WITHOUT_FLUSH } from '../../../database/commit-without-flush';
import { Database } from '../../../database/database';
import { GroupCommit } from '../../../database/group-commit';
import { traceDatabase } from '../../../observability/tracing/database-spans';
import { Tracing } from '../../../observability/tracing/tracing';
import { AuditRecordEntity } from './audit-record.entity';

/** How a call ended, as its record keeps it. */
export type AuditOutcome = Pick<
  AuditRecordEntity,
  'status' | 'durationMs' | 'outputSize' | 'output' | 'error' | 'injectionSuspected' | 'guardFindings'
>;

/** How a call ended, or stands: a record still running has no flags yet. */
type OutcomeFields = Omit<AuditOutcome, 'injectionSuspected' | 'guardFindings'> &
  Partial<Pick<AuditOutcome, 'injectionSuspected' | 'guardFindings'>>;

/** A record as written: every column; the outcome's flags may be left out while the call runs. */
export type NewAuditRecord = Omit<AuditRecordEntity, 'injectionSuspected' | 'guardFindings'> &
  Partial<Pick<AuditRecordEntity, 'injectionSuspected' | 'guardFindings'>>;

/** One end of a listing: from a time (inclusive after, exclusive before), or past a record (keyset on time and id). */
export type AuditBound = { time: Date } | { record: Pick<AuditRecordEntity, 'createdAt' | 'id'> };

export interface AuditFilter {
  tenantId?: string;
  toolName?: string;
  toolId?: string;
  status?: string;
  responseId?: string;
  after?: AuditBound;
  before?: AuditBound;
  order: 'asc' | 'desc';
}

/** Which tenants a retention rule covers: one tenant, or every tenant but those with their own rule. */
export type RetentionScope = { tenantId: string } | { exceptTenants: string[] };

export interface UsageRows {
  totals: { total: number; tenants: number; success_rate: number; avg_ms: number; p99_ms: number };
  byTenant: { tenant_id: string; invocations: number; success_rate: number }[];
  byDay: { date: string; invocations: number }[];
}

/** Calls that ran; refusals (denied, rate limited) are not invocations. */
const RAN = `status IN ('success', 'error', 'cancelled')`;

/** The `tool_audit_records` table: the audit trail's writes, its listings, retention and usage statistics. */
@Injectable()
export class AuditRecordRepository {
  private readonly records: Repository<AuditRecordEntity>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly database: Database,
    private readonly tracing: Tracing,
  ) {
    this.records = dataSource.getRepository(AuditRecordEntity);
  }

  private readonly inserts = new GroupCommit((records: NewAuditRecord[]) => this.insertMany(records));
  private readonly completions = new GroupCommit((completions: { id: string; outcome: AuditOutcome }[]) =>
    this.completeMany(completions),
  );

  /**
   * Inserts a record, committed and flushed to disk before it returns (a `started` record is the trace a call
   * leaves if the process dies while it runs). Concurrent inserts share one statement and one flush.
   */
  async insert(record: NewAuditRecord): Promise<void> {
    await traceDatabase(this.tracing, 'INSERT', 'tool_audit_records', () => this.inserts.submit(record));
  }

  /**
   * Completes a `started` record with how the call ended. Committed (visible everywhere) before it returns,
   * without waiting for the disk: a database crash in the next moments leaves the record `started`, as a
   * crash of the process during the call does. Concurrent completions share one statement.
   */
  async complete(id: string, outcome: AuditOutcome): Promise<void> {
    await traceDatabase(this.tracing, 'UPDATE', 'tool_audit_records', () => this.completions.submit({ id, outcome }));
  }

  private async insertMany(records: NewAuditRecord[]): Promise<void[]> {
    const column = <T>(pick: (record: NewAuditRecord) => T) => records.map(pick);
    await this.database.prepared(
      'audit_insert',
      `INSERT INTO tool_audit_records (id, "timestamp", tenant_id, agent_id, user_id, tool_id, tool_name, call_id,
              audit_level, input_args, response_id, status, duration_ms, output_size, output, error,
              injection_suspected, guard_findings)
       SELECT id, at, tenant_id, agent_id, user_id, tool_id, tool_name, call_id, audit_level, input_args::jsonb,
              response_id, status, duration_ms, output_size, output, error, injection_suspected, guard_findings::jsonb
         FROM unnest($1::varchar[], $2::timestamptz[], $3::varchar[], $4::varchar[], $5::varchar[], $6::varchar[],
                     $7::varchar[], $8::varchar[], $9::varchar[], $10::text[], $11::varchar[], ${outcomeArrays(12)})
           AS r(id, at, tenant_id, agent_id, user_id, tool_id, tool_name, call_id, audit_level, input_args,
                response_id, ${OUTCOME_NAMES})`,
      [
        column((r) => r.id),
        column((r) => r.createdAt),
        column((r) => r.tenantId),
        column((r) => r.agentId),
        column((r) => r.userId),
        column((r) => r.toolId),
        column((r) => r.toolName),
        column((r) => r.callId),
        column((r) => r.auditLevel),
        column((r) => jsonText(r.inputArgs)),
        column((r) => r.responseId),
        ...outcomeColumns(records),
      ],
    );
    return records.map(() => undefined);
  }

  private async completeMany(completions: { id: string; outcome: AuditOutcome }[]): Promise<void[]> {
    await this.database.prepared(
      'audit_complete',
      `WITH ${COMMIT_WITHOUT_FLUSH}
       UPDATE tool_audit_records AS t
          SET status = r.status, duration_ms = r.duration_ms, output_size = r.output_size, output = r.output,
              error = r.error, injection_suspected = r.injection_suspected, guard_findings = r.guard_findings::jsonb
         FROM commit_without_flush, unnest($1::varchar[], ${outcomeArrays(2)}) AS r(id, ${OUTCOME_NAMES})
        WHERE t.id = r.id`,
      [completions.map(({ id }) => id), ...outcomeColumns(completions.map(({ outcome }) => outcome))],
    );
    return completions.map(() => undefined);
  }

  /** A started call now waits for its client's input; `durationMs` is how long it ran so far. */
  async awaitInput(id: string, durationMs: number | null): Promise<void> {
    const query = () =>
      this.dataSource.query(
        `UPDATE tool_audit_records SET status = 'input_required', duration_ms = $2 WHERE id = $1 AND status = 'started'`,
        [id, durationMs],
      );
    await traceDatabase(this.tracing, 'UPDATE', 'tool_audit_records', query);
  }

  /**
   * Takes a waiting call back for its retry: `started` again, in one conditional update, so that of two retries
   * presenting the same state only one proceeds. False when the record is not the tenant's or not waiting.
   */
  async resume(id: string, tenantId: string): Promise<boolean> {
    const query = () =>
      this.dataSource.query(
        `UPDATE tool_audit_records SET status = 'started'
          WHERE id = $1 AND tenant_id = $2 AND status = 'input_required' RETURNING id`,
        [id, tenantId],
      );
    // TypeORM answers an UPDATE with [rows, affected count].
    const [rows] = (await traceDatabase(this.tracing, 'UPDATE', 'tool_audit_records', query)) as [unknown[], number];
    return rows.length === 1;
  }

  /** The record, if it exists (and belongs to `tenantId` when one is given). */
  byId(id: string, tenantId?: string): Promise<AuditRecordEntity | null> {
    return this.records.findOneBy({ id, ...(tenantId && { tenantId }) });
  }

  /** Up to `limit` matching records, by creation time then id, in the filter's order. */
  list(filter: AuditFilter, limit: number): Promise<AuditRecordEntity[]> {
    const builder = this.records.createQueryBuilder('record');
    if (filter.tenantId) builder.andWhere('record.tenantId = :tenantId', { tenantId: filter.tenantId });
    if (filter.toolName) builder.andWhere('record.toolName = :toolName', { toolName: filter.toolName });
    if (filter.toolId) builder.andWhere('record.toolId = :toolId', { toolId: filter.toolId });
    if (filter.status) builder.andWhere('record.status = :status', { status: filter.status });
    if (filter.responseId) builder.andWhere('record.responseId = :responseId', { responseId: filter.responseId });
    for (const [param, comparator, bound] of [
      ['after', '>', filter.after],
      ['before', '<', filter.before],
    ] as const) {
      if (!bound) continue;
      if ('time' in bound) {
        builder.andWhere(`record.createdAt ${comparator === '>' ? '>=' : '<'} :${param}Time`, {
          [`${param}Time`]: bound.time,
        });
        continue;
      }
      builder.andWhere(
        new Brackets((where) =>
          where.where(`(record.createdAt, record.id) ${comparator} (:${param}At, :${param}Id)`, {
            [`${param}At`]: bound.record.createdAt,
            [`${param}Id`]: bound.record.id,
          }),
        ),
      );
    }
    const direction = filter.order === 'asc' ? 'ASC' : 'DESC';
    return builder.orderBy('record.createdAt', direction).addOrderBy('record.id', direction).take(limit).getMany();
  }

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

/** How a call ended, as the arrays of a multi-row statement: the columns OUTCOME_NAMES names, in that order. */
const OUTCOME_NAMES = 'status, duration_ms, output_size, output, error, injection_suspected, guard_findings';

/** The parameter list of outcomeColumns' arrays, numbered from `first`. */
function outcomeArrays(first: number): string {
  const types = ['varchar', 'float8', 'int', 'text', 'text', 'boolean', 'text'];
  return types.map((type, i) => `$${first + i}::${type}[]`).join(', ');
}

/** The outcome fields of each record (a new one or a completion), one array per column of OUTCOME_NAMES. */
function outcomeColumns(rows: OutcomeFields[]): unknown[][] {
  return [
    rows.map((o) => o.status),
    rows.map((o) => o.durationMs),
    rows.map((o) => o.outputSize),
    rows.map((o) => o.output),
    rows.map((o) => o.error),
    rows.map((o) => o.injectionSuspected ?? false),
    rows.map((o) => jsonText(o.guardFindings ?? null)),
  ];
}

/** JSON text for a jsonb column (sent as text: a JavaScript array would be sent as a PostgreSQL array). */
function jsonText(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { COMMIT_WITHOUT_FLUSH } from '../../../database/commit-without-flush';
import { Database } from '../../../database/database';

const INCREMENT = `WITH ${COMMIT_WITHOUT_FLUSH}
       INSERT INTO rate_limit_counters AS c (tool_id, tenant_id, window_name, window_start, count)
       SELECT $1::varchar, $2::varchar, $3::varchar, $4::timestamptz, 1 FROM commit_without_flush
       ON CONFLICT (tool_id, tenant_id, window_name, window_start) DO UPDATE SET count = c.count + 1
       WHERE c.count < $5
       RETURNING c.count`;

/** One fixed window's counter of calls of a tool by a tenant. */
export interface CounterKey {
  toolId: string;
  tenantId: string;
  window: string;
  start: Date;
}

/** The `rate_limit_counters` table (no entity: it is only ever upserted and purged). */
@Injectable()
export class RateLimitCounterRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly database: Database,
  ) {}

  /**
   * Counts one call unless the window already holds `max`: one conditional upsert, row-locked by Postgres,
   * in the caller's transaction, or alone as a prepared statement. Answers whether the call was counted.
   * The counter's transaction commits without waiting for the disk: its row lock, which every call of the
   * tool by the tenant queues on, is then held for microseconds instead of a WAL flush each, and the count
   * stays exact across replicas (a commit is visible at once; see COMMIT_WITHOUT_FLUSH).
   */
  async increment(manager: EntityManager | undefined, key: CounterKey, max: number): Promise<boolean> {
    const values = [key.toolId, key.tenantId, key.window, key.start, max];
    const rows: unknown[] = manager
      ? await manager.query(INCREMENT, values)
      : await this.database.prepared('rate_limit_increment', INCREMENT, values);
    return rows.length > 0;
  }

  async deleteOlderThan(start: Date): Promise<number> {
    const result: [unknown, number] = await this.dataSource.query(
      `DELETE FROM rate_limit_counters WHERE window_start < $1`,
      [start],
    );
    return result[1] ?? 0;
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

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
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Counts one call unless the window already holds `max`: one conditional upsert, row-locked by Postgres,
   * in the caller's transaction. Answers whether the call was counted.
   */
  async increment(manager: EntityManager, key: CounterKey, max: number): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO rate_limit_counters AS c (tool_id, tenant_id, window_name, window_start, count)
       VALUES ($1, $2, $3, $4, 1)
       ON CONFLICT (tool_id, tenant_id, window_name, window_start) DO UPDATE SET count = c.count + 1
       WHERE c.count < $5
       RETURNING c.count`,
      [key.toolId, key.tenantId, key.window, key.start, max],
    );
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

import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { COMMIT_WITHOUT_FLUSH } from '../../../database/commit-without-flush';
import { Database } from '../../../database/database';
import { GroupCommit } from '../../../database/group-commit';

const INCREMENT = `WITH ${COMMIT_WITHOUT_FLUSH}
       INSERT INTO rate_limit_counters AS c (tool_id, tenant_id, window_name, window_start, count)
       SELECT $1::varchar, $2::varchar, $3::varchar, $4::timestamptz, 1 FROM commit_without_flush
       ON CONFLICT (tool_id, tenant_id, window_name, window_start) DO UPDATE SET count = c.count + 1
       WHERE c.count < $5
       RETURNING c.count`;

/**
 * Counts the calls of several counters at once, `calls` each but never past `max`, and answers how many of each
 * counter's calls were counted (`granted`). Existing counters are locked first, all of them (the scalar subquery
 * runs once, before any row is written) and in key order, so two such statements never wait on each other in a
 * cycle; the lock also reads each counter's latest committed count, which it is raised from. Counters missing from
 * the statement's snapshot are inserted. A counter another transaction created after that snapshot is in neither
 * set: it is left out of the answer, and its calls are counted one by one.
 */
const INCREMENT_MANY = `WITH ${COMMIT_WITHOUT_FLUSH},
       wanted AS (
         SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::timestamptz[], $5::int[], $6::int[])
           AS w(tool_id, tenant_id, window_name, window_start, calls, max)),
       locked AS (
         SELECT c.tool_id, c.tenant_id, c.window_name, c.window_start, c.count
           FROM rate_limit_counters c JOIN wanted w USING (tool_id, tenant_id, window_name, window_start)
          ORDER BY c.tool_id, c.tenant_id, c.window_name, c.window_start
            FOR UPDATE OF c),
       added AS (
         INSERT INTO rate_limit_counters (tool_id, tenant_id, window_name, window_start, count)
         SELECT w.tool_id, w.tenant_id, w.window_name, w.window_start, LEAST(w.calls, w.max)
           FROM wanted w, commit_without_flush
          WHERE (SELECT count(*) FROM locked) >= 0
            AND NOT EXISTS (SELECT 1 FROM locked l WHERE (l.tool_id, l.tenant_id, l.window_name, l.window_start)
                                                       = (w.tool_id, w.tenant_id, w.window_name, w.window_start))
         ON CONFLICT (tool_id, tenant_id, window_name, window_start) DO NOTHING
         RETURNING tool_id, tenant_id, window_name, window_start, count AS granted),
       raised AS (
         UPDATE rate_limit_counters c SET count = LEAST(l.count + w.calls, w.max)
           FROM locked l JOIN wanted w USING (tool_id, tenant_id, window_name, window_start), commit_without_flush
          WHERE (c.tool_id, c.tenant_id, c.window_name, c.window_start)
                = (l.tool_id, l.tenant_id, l.window_name, l.window_start)
            AND l.count < w.max
         RETURNING c.tool_id, c.tenant_id, c.window_name, c.window_start, c.count - l.count AS granted)
     SELECT * FROM added
     UNION ALL SELECT * FROM raised
     UNION ALL SELECT tool_id, tenant_id, window_name, window_start, 0 FROM locked JOIN wanted w
                USING (tool_id, tenant_id, window_name, window_start) WHERE count >= w.max`;

/** One fixed window's counter of calls of a tool by a tenant. */
export interface CounterKey {
  toolId: string;
  tenantId: string;
  window: string;
  start: Date;
}

interface CounterRequest {
  key: CounterKey;
  max: number;
}

interface CounterRow {
  tool_id: string;
  tenant_id: string;
  window_name: string;
  window_start: Date;
  granted: number;
}

/** The `rate_limit_counters` table (no entity: it is only ever upserted and purged). */
@Injectable()
export class RateLimitCounterRepository {
  /**
   * Every call of a tool by a tenant takes the same counter's row lock: taken one statement per call, concurrent
   * calls queue on it one round trip each. Counted together, calls arriving while earlier counts are in flight
   * share one statement and one commit.
   */
  private readonly batches = new GroupCommit((requests: CounterRequest[]) => this.incrementMany(requests));

  constructor(
    private readonly dataSource: DataSource,
    private readonly database: Database,
  ) {}

  /**
   * Counts one call unless the window already holds `max`, and answers whether the call was counted: in the
   * caller's transaction when one is given (one conditional upsert, row-locked by Postgres), otherwise together
   * with the concurrent calls of any counter (the count stays exact: each counter's row is locked while it is
   * raised). The counter's transaction commits without waiting for the disk: its row lock is then held for
   * microseconds instead of a WAL flush each, and the count stays exact across replicas (a commit is visible at
   * once; see COMMIT_WITHOUT_FLUSH).
   */
  async increment(manager: EntityManager | undefined, key: CounterKey, max: number): Promise<boolean> {
    if (manager) return (await manager.query(INCREMENT, valuesOf({ key, max }))).length > 0;
    const counted = await this.batches.submit({ key, max });
    if (counted instanceof Error) throw counted;
    return counted;
  }

  async deleteOlderThan(start: Date): Promise<number> {
    const result: [unknown, number] = await this.dataSource.query(
      `DELETE FROM rate_limit_counters WHERE window_start < $1`,
      [start],
    );
    return result[1] ?? 0;
  }

  private async incrementOne(request: CounterRequest): Promise<boolean> {
    return (await this.database.prepared('rate_limit_increment', INCREMENT, valuesOf(request))).length > 0;
  }

  /**
   * Whether each call was counted, in order: a counter's first calls take what its window has left. Once the batch
   * statement has committed nothing may throw: group commit would count every call of the batch again, one by one.
   * A call whose own count then fails answers its error instead.
   */
  private async incrementMany(requests: CounterRequest[]): Promise<(boolean | Error)[]> {
    if (requests.length === 1) return [await this.incrementOne(requests[0])];
    const texts = requests.map(({ key }) => keyText(key));
    const counters = new Map<string, { key: CounterKey; max: number; calls: number; granted?: number }>();
    requests.forEach(({ key, max }, i) => {
      const counter = counters.get(texts[i]);
      // Two calls may carry different limits when the tool changes meanwhile: the smaller one holds.
      if (counter) Object.assign(counter, { calls: counter.calls + 1, max: Math.min(counter.max, max) });
      else counters.set(texts[i], { key, max, calls: 1 });
    });
    const sorted = [...counters.keys()].sort().map((text) => counters.get(text)!);
    const rows = await this.database.prepared<CounterRow>('rate_limit_increment_many', INCREMENT_MANY, [
      sorted.map(({ key }) => key.toolId),
      sorted.map(({ key }) => key.tenantId),
      sorted.map(({ key }) => key.window),
      sorted.map(({ key }) => key.start),
      sorted.map(({ calls }) => calls),
      sorted.map(({ max }) => max),
    ]);
    for (const row of rows) {
      const key = { toolId: row.tool_id, tenantId: row.tenant_id, window: row.window_name, start: row.window_start };
      const counter = counters.get(keyText(key));
      if (counter) counter.granted = Number(row.granted);
    }
    const counted: (boolean | Error)[] = [];
    for (const [i, request] of requests.entries()) {
      const counter = counters.get(texts[i])!;
      if (counter.granted !== undefined) counted.push(counter.granted-- > 0);
      else counted.push(await this.incrementOne(request).catch((error: Error) => error));
    }
    return counted;
  }
}

function valuesOf({ key, max }: CounterRequest): unknown[] {
  return [key.toolId, key.tenantId, key.window, key.start, max];
}

/** The counter's key as text: equal keys give equal texts, and every statement inserts new counters in its order. */
function keyText({ toolId, tenantId, window, start }: CounterKey): string {
  return JSON.stringify([toolId, tenantId, window, start.getTime()]);
}

import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../../../common/clock';
import { traceDatabase } from '../../../observability/tracing/database-spans';
import { Tracing } from '../../../observability/tracing/tracing';
import type { RateLimit } from '../catalog.types';
import { RateLimitCounterRepository } from './rate-limit-counter.repository';

const WINDOWS = [
  { name: 'minute', field: 'per_minute', ms: 60_000 },
  { name: 'hour', field: 'per_hour', ms: 3_600_000 },
  { name: 'day', field: 'per_day', ms: 86_400_000 },
] as const;

export type RateDecision =
  { allowed: true } | { allowed: false; window: string; limit: number; retryAfterSeconds: number };

/**
 * Per tool and tenant, fixed windows counted in the database so a limit holds exactly across replicas
 * and under concurrency: each window's counter is taken with one conditional upsert (row-locked by
 * Postgres), and all windows of a call are taken in one transaction, in the same order, so a call
 * refused by its hourly limit does not use up a minute slot either.
 */
@Injectable()
export class RateLimiter {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly counters: RateLimitCounterRepository,
    private readonly tracing: Tracing,
  ) {}

  async consume(toolId: string, tenantId: string, limit: RateLimit | null): Promise<RateDecision> {
    const windows = WINDOWS.filter((window) => limit?.[window.field] !== undefined);
    if (windows.length === 0) return { allowed: true };
    return traceDatabase(this.tracing, 'UPSERT', 'rate_limit_counters', () =>
      this.count(toolId, tenantId, limit, windows),
    );
  }

  private async count(
    toolId: string,
    tenantId: string,
    limit: RateLimit | null,
    windows: (typeof WINDOWS)[number][],
  ): Promise<RateDecision> {
    const now = this.clock.now().getTime();
    try {
      if (windows.length === 1) {
        // One conditional upsert is atomic by itself: no transaction round trips needed.
        await this.take(undefined, toolId, tenantId, windows[0], limit![windows[0].field]!, now);
      } else {
        await this.dataSource.transaction(async (manager) => {
          for (const window of windows) await this.take(manager, toolId, tenantId, window, limit![window.field]!, now);
        });
      }
    } catch (error) {
      if (error instanceof LimitReached) return error.decision;
      throw error;
    }
    return { allowed: true };
  }

  /** Counts one call in a window, or throws LimitReached when the window is full. */
  private async take(
    manager: EntityManager | undefined,
    toolId: string,
    tenantId: string,
    window: (typeof WINDOWS)[number],
    max: number,
    now: number,
  ): Promise<void> {
    const start = new Date(Math.floor(now / window.ms) * window.ms);
    const taken = await this.counters.increment(manager, { toolId, tenantId, window: window.name, start }, max);
    if (!taken) {
      const retryAfterSeconds = Math.max(1, Math.ceil((start.getTime() + window.ms - now) / 1000));
      throw new LimitReached({ allowed: false, window: window.name, limit: max, retryAfterSeconds });
    }
  }

  /** Drops counters of windows that ended long ago (run by the maintenance job). */
  async purge(olderThan: Date): Promise<number> {
    return this.counters.deleteOlderThan(olderThan);
  }
}

/** Aborts the transaction, rolling back the windows already counted for this call. */
class LimitReached extends Error {
  constructor(readonly decision: Extract<RateDecision, { allowed: false }>) {
    super('rate limit reached');
  }
}

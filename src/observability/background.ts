import { Injectable, Logger } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { MetricsRegistry } from './metrics.registry';

/**
 * The one way to run work nobody awaits (timers, event handlers, best-effort bookkeeping). A failure is
 * logged and counted in `<ns>_background_task_failures_total{task}`, never left as an unhandled
 * rejection: with Node's default, one of those ends the process, so a database blip would take down
 * every request it serves.
 */
@Injectable()
export class BackgroundTasks {
  private readonly logger = new Logger('Background');
  private readonly failures: Counter<'task'>;

  constructor(metrics: MetricsRegistry) {
    this.failures = metrics.counter({
      name: 'background_task_failures_total',
      help: 'Background work (timers, event handlers, best-effort writes) that failed, by task.',
      labelNames: ['task'],
    });
  }

  /** Starts `work` without waiting for it; a failure (thrown or rejected) is recorded under `task`. */
  run(task: string, work: () => Promise<unknown>): void {
    void this.settle(task, Promise.resolve().then(work));
  }

  /** Waits for `promise`; a failure is recorded under `task` and answered with undefined. */
  async settle<T>(task: string, promise: Promise<T>): Promise<T | undefined> {
    try {
      return await promise;
    } catch (error) {
      this.failed(task, error);
      return undefined;
    }
  }

  /** Records a failure that reached this process some other way (an unhandled rejection). */
  failed(task: string, error: unknown): void {
    this.failures.inc({ task });
    this.logger.error({ err: error, task }, `Background task '${task}' failed: ${describe(error)}`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

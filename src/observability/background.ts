import { Injectable, Logger } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { MetricsRegistry } from './metrics.registry';

/** Work repeated on an interval by `BackgroundTasks.every`. */
export interface RepeatingTask {
  /** Runs it now, or joins the run in progress; settles when that run ends (failures already recorded). */
  runNow(): Promise<void>;
  /** Clears the timer and waits for the run in progress. */
  stop(): Promise<void>;
}

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

  /**
   * The one scheduler of periodic work: runs `work` every `intervalMs` (and at once with `immediately`)
   * until stopped. A run still going when the next is due is not doubled. The timer does not keep the
   * process alive. Work that one replica at a time should do takes `tryWithAdvisoryLock` inside `work`.
   */
  every(
    task: string,
    intervalMs: number,
    work: () => Promise<unknown>,
    options: { immediately?: boolean } = {},
  ): RepeatingTask {
    let running: Promise<void> | undefined;
    const runNow = (): Promise<void> => {
      running ??= this.settle(task, Promise.resolve().then(work)).then(() => {
        running = undefined;
      });
      return running;
    };
    const timer = setInterval(() => void runNow(), intervalMs).unref();
    if (options.immediately) void runNow();
    return {
      runNow,
      stop: async () => {
        clearInterval(timer);
        await running;
      },
    };
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

import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { Gauge } from 'prom-client';
import { MetricsRegistry } from './metrics.registry';

/** How finely the event loop's delay is sampled, in milliseconds. */
const RESOLUTION_MS = 10;
/** The quantiles exported; 1 is the worst delay seen. */
const QUANTILES = [0.5, 0.9, 0.99, 1];

/**
 * `<ns>_event_loop_delay_seconds{quantile}`: how late the event loop ran its timers (perf_hooks'
 * monitorEventLoopDelay) since the previous scrape. Work that blocks the loop (a parse or a tokenizer on
 * the main thread) shows here before it shows as slow requests.
 */
@Injectable()
export class EventLoopMetrics implements OnModuleDestroy {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  readonly delay: Gauge<'quantile'>;

  constructor(metrics: MetricsRegistry) {
    this.histogram.enable();
    const histogram = this.histogram;
    this.delay = metrics.gauge({
      name: 'event_loop_delay_seconds',
      help: 'Event loop delay in seconds since the previous scrape, by quantile (1 is the maximum).',
      labelNames: ['quantile'],
      collect() {
        // No sample yet (a scrape right after the previous one): report nothing rather than zeros or the
        // previous scrape's figures.
        if (histogram.count === 0) return this.reset();
        for (const quantile of QUANTILES) {
          const nanoseconds = quantile === 1 ? histogram.max : histogram.percentile(quantile * 100);
          this.set({ quantile: String(quantile) }, nanoseconds / 1e9);
        }
        histogram.reset();
      },
    });
  }

  onModuleDestroy(): void {
    this.histogram.disable();
  }
}

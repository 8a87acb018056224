import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, MetricsRegistry } from '../../observability/metrics.registry';

/** Every dispatched call, whatever executes it. */
@Injectable()
export class InvocationMetrics {
  readonly calls: Counter<'tool_name' | 'source' | 'status'>;
  readonly duration: Histogram<'tool_name' | 'source'>;

  constructor(metrics: MetricsRegistry) {
    this.calls = metrics.counter({
      name: 'tool_calls_total',
      help: 'Tool calls through the dispatcher, by tool, source and final status.',
      labelNames: ['tool_name', 'source', 'status'],
    });
    this.duration = metrics.histogram({
      name: 'tool_call_duration_seconds',
      help: 'Duration of executed tool calls in seconds (validation and execution).',
      labelNames: ['tool_name', 'source'],
      buckets: LATENCY_BUCKETS,
    });
  }
}

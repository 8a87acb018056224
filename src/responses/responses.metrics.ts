import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, MetricsRegistry } from '../observability/metrics.registry';

/** Responses by how they ended, and the time each upstream model turn took. */
@Injectable()
export class ResponsesMetrics {
  readonly responses: Counter<'status'>;
  readonly upstreamTurn: Histogram<'outcome'>;

  constructor(metrics: MetricsRegistry) {
    this.responses = metrics.counter({
      name: 'responses_total',
      help: 'Responses of /v1/responses by final status (completed, failed, cancelled, incomplete).',
      labelNames: ['status'],
    });
    this.upstreamTurn = metrics.histogram({
      name: 'responses_upstream_turn_seconds',
      help: 'Duration of upstream model turns (one streamed Chat Completions request) in seconds.',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
    });
  }
}

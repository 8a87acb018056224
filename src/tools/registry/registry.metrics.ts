import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, MetricsRegistry } from '../../observability/metrics.registry';

/** The metrics every provider gets without declaring them (executions, API requests), recorded by the registry. */
@Injectable()
export class RegistryMetrics {
  readonly executions: Counter<'provider' | 'tool_name' | 'status'>;
  readonly executionDuration: Histogram<'provider' | 'tool_name'>;
  readonly apiRequests: Counter<'provider' | 'method' | 'path' | 'status'>;
  readonly apiDuration: Histogram<'provider' | 'method' | 'path'>;

  constructor(metrics: MetricsRegistry) {
    this.executions = metrics.counter({
      name: 'builtin_tool_executions_total',
      help: 'Executions of built-in tools, by provider, tool and status (success or error).',
      labelNames: ['provider', 'tool_name', 'status'],
    });
    this.executionDuration = metrics.histogram({
      name: 'builtin_tool_duration_seconds',
      help: 'Duration of built-in tool executions in seconds.',
      labelNames: ['provider', 'tool_name'],
      buckets: LATENCY_BUCKETS,
    });
    this.apiRequests = metrics.counter({
      name: 'builtin_api_requests_total',
      help: "Requests to built-in providers' management APIs, by route pattern.",
      labelNames: ['provider', 'method', 'path', 'status'],
    });
    this.apiDuration = metrics.histogram({
      name: 'builtin_api_duration_seconds',
      help: "Duration of requests to built-in providers' management APIs in seconds.",
      labelNames: ['provider', 'method', 'path'],
      buckets: LATENCY_BUCKETS,
    });
  }
}

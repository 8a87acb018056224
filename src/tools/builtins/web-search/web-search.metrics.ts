import { Counter, Histogram, Metric } from 'prom-client';
import { LATENCY_BUCKETS } from '../../../observability/metrics.registry';

export type QueryStatus = 'ok' | 'cached' | 'error' | 'timeout' | 'rate_limited' | 'malformed' | 'aborted';

/**
 * The web_search provider's own metrics. Created unregistered (`registers: []`): the FunctionRegistry puts
 * what `collectors()` returns on the application's own registry.
 */
export class WebSearchMetrics {
  /** One count per backend request by outcome, plus `cached` for answers served from the cache. */
  readonly queries: Counter<'backend' | 'status'>;
  /** Results handed to the caller per answered query. */
  readonly resultsReturned: Histogram<'backend'>;
  /** Duration of each backend request, failed ones included. */
  readonly backendLatency: Histogram<'backend'>;

  constructor(namespace: string) {
    this.queries = new Counter({
      name: `${namespace}_websearch_queries_total`,
      help: 'web_search backend requests by backend and status (ok, error, timeout, rate_limited, malformed, aborted), and cache hits (cached).',
      labelNames: ['backend', 'status'],
      registers: [],
    });
    this.resultsReturned = new Histogram({
      name: `${namespace}_websearch_results_returned`,
      help: 'Number of results web_search returned per answered query, by backend.',
      labelNames: ['backend'],
      buckets: [0, 1, 2, 3, 5, 10, 15, 20],
      registers: [],
    });
    this.backendLatency = new Histogram({
      name: `${namespace}_websearch_backend_latency_seconds`,
      help: 'Duration of web_search backend requests in seconds, by backend.',
      labelNames: ['backend'],
      buckets: LATENCY_BUCKETS,
      registers: [],
    });
  }

  all(): Metric[] {
    return [this.queries, this.resultsReturned, this.backendLatency];
  }
}

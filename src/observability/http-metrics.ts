import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Counter, Histogram } from 'prom-client';
import { matchedRoute } from '../common/route';
import { LATENCY_BUCKETS, MetricsRegistry } from './metrics.registry';

@Injectable()
export class HttpMetrics {
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route' | 'status'>;

  constructor(metrics: MetricsRegistry) {
    this.requests = metrics.counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status.',
      labelNames: ['method', 'route', 'status'],
    });
    this.duration = metrics.histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration in seconds, by route pattern, method and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
    });
  }
}

/**
 * Measures every request when its response is finished, whichever layer answered it. The route label
 * is the route pattern, never the raw URL, so label sets stay bounded.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: HttpMetrics) {}

  use(request: Request, response: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    response.once('finish', () => {
      const labels = {
        method: request.method,
        route: matchedRoute(request) ?? 'unmatched',
        status: String(response.statusCode),
      };
      this.metrics.requests.inc(labels);
      this.metrics.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  }
}

import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { matchedRoute } from '../../common/route';
import { FunctionRegistry } from './function-registry';
import { RegistryMetrics } from './registry.metrics';

/**
 * Counts requests to providers' management routes, so every provider's API is measured without code of
 * its own. Measured when the response finishes, so requests refused by the auth guard are counted too.
 */
@Injectable()
export class ProviderApiMetricsMiddleware implements NestMiddleware {
  constructor(
    private readonly registry: FunctionRegistry,
    private readonly metrics: RegistryMetrics,
  ) {}

  use(request: Request, response: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    response.once('finish', () => {
      const path = matchedRoute(request);
      const provider = path && this.registry.providerOfRoute(request.method, path);
      if (!provider) return;
      const labels = { provider, method: request.method, path };
      this.metrics.apiRequests.inc({ ...labels, status: String(response.statusCode) });
      this.metrics.apiDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  }
}

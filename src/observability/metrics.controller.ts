import { Controller, Get, Headers, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { Public } from '../auth/auth.decorators';
import { ApiError } from '../common/api-error';
import { AppConfig } from '../config/app-config';
import { MetricsRegistry } from './metrics.registry';

/** Prometheus scrape endpoint; open unless `metrics.bearer_token` is configured. */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly config: AppConfig,
  ) {}

  @Get()
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() response: Response): Promise<void> {
    const token = this.config.metrics.bearer_token;
    if (token && !sameSecret(authorization ?? '', `Bearer ${token}`)) {
      throw ApiError.unauthorized('The metrics endpoint needs its bearer token', 'invalid_metrics_token');
    }
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    response.send(await this.metrics.registry.metrics());
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

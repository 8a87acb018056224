import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../common/api-error';
import { AppConfig } from '../config/app-config';

/**
 * Browsers send Origin; a page on another site must not drive a local or internal gateway with a
 * caller's credentials (DNS rebinding). Requests without Origin come from non-browser clients and pass.
 */
export function checkOrigin(request: Request, allowed: readonly string[]): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (allowed.includes(origin) || isSameHost(origin, request.headers.host)) return;
  throw new ApiError(
    403,
    'permission_error',
    `Origin '${origin.slice(0, 200)}' is not allowed: add it to gateway.allowed_origins`,
    'origin_not_allowed',
  );
}

function isSameHost(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** Runs before authentication, so a refused page learns nothing about the credentials it sent or lacks. */
@Injectable()
export class OriginCheckMiddleware implements NestMiddleware {
  constructor(private readonly config: AppConfig) {}

  use(request: Request, _response: Response, next: NextFunction): void {
    checkOrigin(request, this.config.gateway.allowed_origins);
    next();
  }
}

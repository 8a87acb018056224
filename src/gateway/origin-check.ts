import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../common/api-error';
import { AppConfig } from '../config/app-config';

/** Host names that always mean this machine: a page can only be on them if it runs here. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Browsers send Origin; a page on another site must not drive a local or internal gateway with a
 * caller's credentials. Requests without Origin come from non-browser clients and pass. An Origin equal
 * to the request's own Host passes only when that host is really this service's (a loopback name, or
 * gateway.public_url's host): under DNS rebinding the attacker's domain resolves here and the browser
 * sends it as both Host and Origin, so their agreement alone proves nothing.
 */
export function checkOrigin(request: Request, allowed: readonly string[], publicHost?: string): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (allowed.includes(origin) || isOwnHost(origin, request.headers.host, publicHost)) return;
  throw new ApiError(
    403,
    'permission_error',
    `Origin '${origin.slice(0, 200)}' is not allowed: add it to gateway.allowed_origins`,
    'origin_not_allowed',
  );
}

function isOwnHost(origin: string, host: string | undefined, publicHost: string | undefined): boolean {
  if (!host) return false;
  try {
    const url = new URL(origin);
    if (url.host !== host) return false;
    return LOOPBACK_HOSTS.has(url.hostname) || url.host === publicHost;
  } catch {
    return false;
  }
}

/** Runs before authentication, so a refused page learns nothing about the credentials it sent or lacks. */
@Injectable()
export class OriginCheckMiddleware implements NestMiddleware {
  private readonly publicHost?: string;

  constructor(private readonly config: AppConfig) {
    const publicUrl = config.gateway.public_url;
    this.publicHost = publicUrl ? new URL(publicUrl).host : undefined;
  }

  use(request: Request, _response: Response, next: NextFunction): void {
    checkOrigin(request, this.config.gateway.allowed_origins, this.publicHost);
    next();
  }
}

import { Injectable, NestMiddleware } from '@nestjs/common';
import cors from 'cors';
import type { NextFunction, Request, Response } from 'express';
import { AppConfig } from '../config/app-config';

/**
 * Headers a browser-based MCP client must read: the OAuth challenge on a 401, the MCP transport's own
 * headers, the request id for support and the wait on a 429.
 */
export const EXPOSED_HEADERS = [
  'WWW-Authenticate',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'X-Request-Id',
  'Retry-After',
];

/**
 * CORS for what a browser-based MCP client (the MCP Inspector's web UI, say) fetches from another origin: /mcp,
 * the OAuth metadata under /.well-known and the authorization server's /register and /token. Only the origins in
 * gateway.allowed_origins get the headers; a preflight is answered here, before authentication, since browsers
 * send it without credentials. Credentials travel as a bearer header, never cookies, so none are allowed.
 */
@Injectable()
export class BrowserCorsMiddleware implements NestMiddleware {
  private readonly handle: ReturnType<typeof cors>;

  constructor(config: AppConfig) {
    const allowed = new Set(config.gateway.allowed_origins);
    this.handle = cors({
      origin: (origin, decide) => decide(null, origin !== undefined && allowed.has(origin)),
      methods: ['GET', 'POST', 'DELETE'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
  }

  use(request: Request, response: Response, next: NextFunction): void {
    this.handle(request, response, next);
  }
}

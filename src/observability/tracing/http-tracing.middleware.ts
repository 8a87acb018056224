import { Injectable, NestMiddleware } from '@nestjs/common';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
import type { NextFunction, Request, Response } from 'express';
import { matchedRoute } from '../../common/route';
import { extractTraceContext } from './trace-context';
import { Tracing } from './tracing';

/**
 * One server span per HTTP request, child of the caller's `traceparent` when it sends one, active for everything
 * the request does. Named by method and route pattern (never the raw URL: paths carry ids, queries carry codes);
 * it ends when the response is finished or the connection closes.
 */
@Injectable()
export class HttpTracingMiddleware implements NestMiddleware {
  constructor(private readonly tracing: Tracing) {}

  use(request: Request, response: Response, next: NextFunction): void {
    if (!this.tracing.enabled) return next();
    const parent = extractTraceContext(request.headers, ROOT_CONTEXT);
    const span = this.tracing.tracer.startSpan(
      request.method,
      { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method } },
      parent,
    );
    response.once('close', () => {
      const route = matchedRoute(request);
      if (route !== undefined) {
        span.updateName(`${request.method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.statusCode);
      if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  }
}

import { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { json, urlencoded } from 'body-parser';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Observable } from 'rxjs';
import { contentTypeCheck } from './content-type.middleware';
import { jsonDepthLimit } from './json-depth.middleware';

/**
 * Reads and parses request bodies (content type, JSON, form, then the JSON depth and storable-string checks) after the AuthGuard has let the request
 * through, not in middleware before it: a caller without a valid credential is refused before a byte of its body
 * is read, so unauthenticated bodies cost nothing and cannot hold a socket open while they trickle in. Open
 * routes (@Public) read their bodies here too. A failure is thrown to the ErrorFilter as from middleware.
 */
export class BodyParsingInterceptor implements NestInterceptor {
  private readonly parsers: RequestHandler[];

  /** `limit`: server.body_limit ("1mb"); `maxJsonDepth`: server.max_json_depth. */
  constructor(limit: string, maxJsonDepth: number) {
    this.parsers = [
      contentTypeCheck as RequestHandler,
      json({ limit }),
      urlencoded({ limit, extended: true }),
      jsonDepthLimit(maxJsonDepth) as RequestHandler,
    ];
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() === 'http') {
      const http = context.switchToHttp();
      const request = http.getRequest<Request>();
      const response = http.getResponse<Response>();
      for (const parse of this.parsers) await run(parse, request, response);
    }
    return next.handle();
  }
}

function run(parse: RequestHandler, request: Request, response: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const next: NextFunction = (error?: unknown) => (error ? reject(error as Error) : resolve());
    void parse(request, response, next);
  });
}

import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { ApiError, ErrorType } from './api-error';
import { REQUEST_ID_HEADER, requestId } from './request-id';
import { allowedMethods, matchedRoute } from './route';

const TYPE_BY_STATUS: Record<number, ErrorType> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  503: 'service_unavailable',
};

/** Errors raised by Express's body parsers before any route runs. */
interface BodyParserError {
  type: string;
  status?: number;
  expose?: boolean;
  limit?: number;
}

/**
 * Renders every failure, from any layer, as the OpenAI error envelope. Unknown errors become a 500
 * whose body carries only an error id; the details go to the log under that id.
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    const error = this.toApiError(exception, request);
    if (response.headersSent) {
      response.end();
      return;
    }
    // Body-parser failures (invalid JSON, 413) happen before the request-id middleware has run.
    if (!response.hasHeader(REQUEST_ID_HEADER)) requestId(request, response);
    for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
    // Every 401 names the scheme it wants (RFC 9110 section 11.6.1); on /mcp with OAuth the guard's challenge says more.
    if (error.status === HttpStatus.UNAUTHORIZED && !response.hasHeader('WWW-Authenticate'))
      response.setHeader(
        'WWW-Authenticate',
        error.code === 'missing_credentials'
          ? 'Bearer realm="toolgate"'
          : 'Bearer realm="toolgate", error="invalid_token"',
      );
    // A refused request whose body was never read (no credential, a body refused before its end): Node would keep
    // the connection and drain the rest, for as long as the client takes to send it.
    if (!request.complete) response.setHeader('Connection', 'close');
    response.status(error.status).json(error.toBody());
  }

  toApiError(exception: unknown, request: Request): ApiError {
    if (exception instanceof ApiError) return exception;
    // Express's body parsers fail before any route runs; Nest hands them over wrapped, with the original as `cause`.
    const parserError = this.fromBodyParser(exception instanceof HttpException ? exception.cause : exception);
    if (parserError) return parserError;
    if (exception instanceof HttpException) return this.fromHttpException(exception, request);
    const errorId = randomUUID();
    this.logger.error(
      { err: exception, errorId, method: request.method, path: matchedRoute(request) },
      'Unhandled error',
    );
    return new ApiError(
      HttpStatus.INTERNAL_SERVER_ERROR,
      'server_error',
      `The server had an error while processing your request (error id ${errorId})`,
      'internal_error',
    );
  }

  private fromHttpException(exception: HttpException, request: Request): ApiError {
    const status = exception.getStatus();
    if (status === HttpStatus.NOT_FOUND && !matchedRoute(request)) {
      const allowed = allowedMethods(request);
      if (allowed.length > 0)
        return new ApiError(
          HttpStatus.METHOD_NOT_ALLOWED,
          'invalid_request_error',
          `${request.method} is not allowed on ${request.path}; it takes ${allowed.join(', ')}`,
          'method_not_allowed',
          null,
          { Allow: allowed.join(', ') },
        );
      return new ApiError(404, 'not_found_error', `Unknown route: ${request.method} ${request.path}`, 'unknown_route');
    }
    const body = exception.getResponse();
    const raw = typeof body === 'string' ? body : (body as { message?: unknown }).message;
    const message = Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : exception.message;
    return new ApiError(
      status,
      TYPE_BY_STATUS[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'),
      message,
    );
  }

  private fromBodyParser(exception: unknown): ApiError | undefined {
    const error = exception as BodyParserError | undefined;
    if (typeof error?.type !== 'string' || typeof error.status !== 'number') return undefined;
    switch (error.type) {
      case 'entity.parse.failed':
        return ApiError.invalid('The request body is not valid JSON', null, 'invalid_json');
      case 'entity.too.large':
        return new ApiError(
          413,
          'invalid_request_error',
          `The request body exceeds the limit of ${error.limit} bytes`,
          'payload_too_large',
        );
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return new ApiError(415, 'invalid_request_error', 'Unsupported request body encoding', 'unsupported_encoding');
      default:
        return error.status < 500
          ? ApiError.invalid('The request body could not be read', null, 'invalid_body')
          : undefined;
    }
  }
}

import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './api-error';

/** What the routes read: JSON everywhere, forms on the OAuth endpoints, multipart for uploads. */
const ACCEPTED = ['application/json', '+json', 'application/x-www-form-urlencoded', 'multipart/form-data'];

/**
 * A request body of any other type is refused with 415 naming it. Unparsed, it would reach validation as an
 * empty body, whose complaint ("name must be a string") points at the wrong fault.
 */
export function contentTypeCheck(request: Request, _response: Response, next: NextFunction): void {
  const hasBody =
    Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
  if (!hasBody || request.is(ACCEPTED)) return next();
  const given = request.headers['content-type'];
  next(
    new ApiError(
      415,
      'invalid_request_error',
      given
        ? `Content-Type ${given.split(';')[0]} is not accepted: send application/json (multipart/form-data for uploads)`
        : 'The request body has no Content-Type: send application/json (multipart/form-data for uploads)',
      'unsupported_media_type',
    ),
  );
}

import { HttpStatus } from '@nestjs/common';

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'service_unavailable';

/** The OpenAI error envelope every failed request answers with. */
export interface ErrorBody {
  error: { message: string; type: ErrorType; param: string | null; code: string | null };
}

/**
 * A domain error with its HTTP status and OpenAI-style type and code. Services throw these; the global
 * filter renders them, so a controller never builds an error body by hand.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }

  static invalid(message: string, param: string | null = null, code = 'invalid_value'): ApiError {
    return new ApiError(HttpStatus.BAD_REQUEST, 'invalid_request_error', message, code, param);
  }

  static unauthorized(message = 'Missing or invalid credentials', code = 'invalid_api_key'): ApiError {
    return new ApiError(HttpStatus.UNAUTHORIZED, 'authentication_error', message, code);
  }

  static forbidden(message: string, code = 'forbidden'): ApiError {
    return new ApiError(HttpStatus.FORBIDDEN, 'permission_error', message, code);
  }

  static notFound(kind: string, id: string, param: string | null = null): ApiError {
    return new ApiError(
      HttpStatus.NOT_FOUND,
      'not_found_error',
      `No ${kind} found with id '${id}'`,
      'not_found',
      param,
    );
  }

  static conflict(message: string, code = 'conflict', param: string | null = null): ApiError {
    return new ApiError(HttpStatus.CONFLICT, 'conflict_error', message, code, param);
  }

  static unavailable(message: string, code = 'service_unavailable'): ApiError {
    return new ApiError(HttpStatus.SERVICE_UNAVAILABLE, 'service_unavailable', message, code);
  }
}

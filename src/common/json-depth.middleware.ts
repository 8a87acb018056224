import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './api-error';
import { findTooDeep } from './json-depth';

/**
 * Refuses a parsed body nested deeper than `maxDepth` before anything walks it recursively
 * (class-transformer, validation, the audit redactor), which would overflow the stack on it.
 */
export function jsonDepthLimit(maxDepth: number) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    const body: unknown = request.body;
    const path = body !== null && typeof body === 'object' ? findTooDeep(body, maxDepth) : undefined;
    next(path === undefined ? undefined : tooDeep(path, maxDepth));
  };
}

export function tooDeep(path: string, maxDepth: number): ApiError {
  return ApiError.invalid(tooDeepMessage(path, maxDepth), path, 'nesting_too_deep');
}

export function tooDeepMessage(path: string, maxDepth: number): string {
  return `The value at '${path}' is nested more than ${maxDepth} levels deep (server.max_json_depth)`;
}

import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './api-error';
import { findTooDeep, findUnstorableString } from './json-depth';

/**
 * Refuses a parsed body nested deeper than `maxDepth` before anything walks it recursively
 * (class-transformer, validation, the audit redactor), which would overflow the stack on it; then one whose
 * strings the database cannot store (U+0000, unpaired surrogates), which would otherwise fail on insert as a 500.
 */
export function jsonDepthLimit(maxDepth: number) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    const body: unknown = request.body;
    if (body === null || typeof body !== 'object') return next();
    const deep = findTooDeep(body, maxDepth);
    if (deep !== undefined) return next(tooDeep(deep, maxDepth));
    const unstorable = findUnstorableString(body);
    next(
      unstorable === undefined
        ? undefined
        : ApiError.invalid(
            `The string at '${unstorable}' contains a NUL character (\\u0000) or an unpaired surrogate, which ` +
              'cannot be stored; remove it or send well-formed Unicode',
            unstorable,
            'invalid_string',
          ),
    );
  };
}

export function tooDeep(path: string, maxDepth: number): ApiError {
  return ApiError.invalid(tooDeepMessage(path, maxDepth), path, 'nesting_too_deep');
}

export function tooDeepMessage(path: string, maxDepth: number): string {
  return `The value at '${path}' is nested more than ${maxDepth} levels deep (server.max_json_depth)`;
}

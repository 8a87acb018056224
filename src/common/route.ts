import type { Request } from 'express';

/** Nest answers unknown paths with a catch-all route of this shape; it is not a real route. */
const NOT_FOUND_CATCH_ALL = '{/*splat}';

/** The matched route pattern ("/v1/admin/api_keys/:id"), or undefined when no route matched. */
export function matchedRoute(request: Request): string | undefined {
  const path = request.route?.path as unknown;
  if (typeof path !== 'string' || path === NOT_FOUND_CATCH_ALL) return undefined;
  return `${request.baseUrl ?? ''}${path}`;
}

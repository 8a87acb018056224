import type { Request } from 'express';

/** Nest answers unknown paths with a catch-all route of this shape; it is not a real route. */
const NOT_FOUND_CATCH_ALL = '{/*splat}';

/** The matched route pattern ("/v1/admin/api_keys/:id"), or undefined when no route matched. */
export function matchedRoute(request: Request): string | undefined {
  const path = request.route?.path as unknown;
  if (typeof path !== 'string' || path === NOT_FOUND_CATCH_ALL) return undefined;
  return `${request.baseUrl ?? ''}${path}`;
}

interface RouteLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
  match(path: string): boolean;
}

/**
 * The methods the app's routes answer on this request's path (GET implying HEAD), for a 405 with `Allow`
 * when the path is known but the method is not. Nest's catch-all for unknown paths does not count.
 */
export function allowedMethods(request: Request): string[] {
  const router = (request.app as unknown as { router?: { stack?: RouteLayer[] } }).router;
  const methods = new Set<string>();
  for (const layer of router?.stack ?? []) {
    if (!layer.route || layer.route.path === NOT_FOUND_CATCH_ALL || !layer.match(request.path)) continue;
    for (const [method, enabled] of Object.entries(layer.route.methods)) {
      if (!enabled || method === '_all') continue;
      methods.add(method.toUpperCase());
      if (method === 'get') methods.add('HEAD');
    }
  }
  return [...methods].sort();
}

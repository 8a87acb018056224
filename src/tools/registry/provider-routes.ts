import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';

/** Route patterns ("GET /v1/vector_stores/:id") of a controller, in the form Express reports them. */
export function controllerRoutes(controller: InstanceWrapper): string[] {
  const type = controller.metatype as (new (...args: never[]) => unknown) | null;
  if (!type) return [];
  const bases = asArray(Reflect.getMetadata(PATH_METADATA, type) as string | string[] | undefined);
  const routes: string[] = [];
  for (const key of Object.getOwnPropertyNames(type.prototype)) {
    const handler = (type.prototype as Record<string, unknown>)[key];
    if (key === 'constructor' || typeof handler !== 'function') continue;
    const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
    const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
    if (method === undefined || paths === undefined) continue;
    for (const base of bases) {
      for (const path of asArray(paths)) routes.push(`${RequestMethod[method]} ${joinPath(base, path)}`);
    }
  }
  return routes;
}

function asArray(value: string | string[] | undefined): string[] {
  if (value === undefined) return ['/'];
  return Array.isArray(value) ? value : [value];
}

function joinPath(base: string, path: string): string {
  const joined = `/${[base, path]
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
  return joined;
}

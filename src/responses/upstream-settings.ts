import { ApiError } from '../common/api-error';
import { readSecretFile } from '../config/secret-file';
import type { Config } from '../config/config.schema';

export const UPSTREAM_KEY_ENV = 'ENGINE_UPSTREAM_API_KEY';

export interface UpstreamSettings {
  /** Base URL of the OpenAI-compatible API, without a trailing slash. */
  url: string;
  apiKey?: string;
  timeoutMs: number;
  model: Config['engine']['upstream']['model'];
}

/**
 * The upstream model server, or undefined while `engine.upstream.url` is unset (the Responses API is off).
 * The key comes from `api_key_file` (a mounted secret) or ENGINE_UPSTREAM_API_KEY, never from the config
 * file; an unreadable or empty key file stops start-up.
 */
export function resolveUpstreamSettings(
  engine: Config['engine'],
  env: NodeJS.ProcessEnv = process.env,
): UpstreamSettings | undefined {
  const upstream = engine.upstream;
  if (!upstream.url) return undefined;
  const apiKey = upstream.api_key_file
    ? readSecretFile('engine.upstream.api_key_file', upstream.api_key_file)
    : env[UPSTREAM_KEY_ENV]?.trim() || undefined;
  return { url: upstream.url.replace(/\/+$/, ''), apiKey, timeoutMs: upstream.timeout, model: upstream.model };
}

/** The upstream model for a requested name: the configured one, its mapping, or the name itself. */
export function upstreamModelFor(settings: UpstreamSettings, requested: string): string {
  const model = settings.model;
  if (model === undefined) return requested;
  if (typeof model === 'string') return model;
  const mapped = model[requested] ?? model['*'];
  if (mapped !== undefined) return mapped;
  const known = Object.keys(model).filter((name) => name !== '*');
  throw ApiError.invalid(
    `The model '${requested}' does not exist or you do not have access to it; available: ${known.join(', ')}`,
    'model',
    'model_not_found',
  );
}

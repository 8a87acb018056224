import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { Config, configSchema } from './config.schema';

/** Raised for any configuration problem; its message is the single line printed before start-up stops. */
export class ConfigError extends Error {}

const ENV_PREFIX = 'TOOLGATE_';
const NESTING = '__';

/** Conventional variables that operators expect to work without the TOOLGATE_ prefix. */
const ENV_ALIASES: Record<string, string[]> = {
  PORT: ['server', 'port'],
  HOST: ['server', 'host'],
  DATABASE_URL: ['database', 'url'],
  ADMIN_API_KEY: ['auth', 'admin_api_key'],
  LOG_LEVEL: ['logging', 'level'],
};

/** Credentials: a configuration error names these keys but never prints their values (it ends up in logs). */
const SECRET_KEYS = new Set(['auth.admin_api_key', 'auth.jwt.secret', 'metrics.bearer_token']);

/** Variables with the prefix that are not configuration keys. */
const NOT_KEYS = new Set(['TOOLGATE_CONFIG']);

/**
 * Loads `config.yaml` (path from TOOLGATE_CONFIG, default ./config.yaml, optional), applies environment
 * overrides and validates the result. Every key can be set as TOOLGATE_<SECTION>__<KEY>, for example
 * TOOLGATE_AUTH__JWT__SECRET or TOOLGATE_BUILTINS__WEB_SEARCH__ENABLED=true.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: object = {}): Config {
  const path = env.TOOLGATE_CONFIG ?? './config.yaml';
  const fromFile = readConfigFile(path, env.TOOLGATE_CONFIG !== undefined);
  const merged = deepMerge(deepMerge(fromFile, envOverrides(env)), overrides);
  return validateConfig(merged);
}

export function validateConfig(raw: unknown): Config {
  const result = configSchema.safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(describeIssue(result.error.issues[0], raw));
}

/**
 * Validates one provider's section (`builtins.<name>`) against the provider's own schema, with the same
 * one-line errors as the main configuration.
 */
export function parseProviderConfig<S extends z.ZodType>(
  config: { builtins: Record<string, unknown> },
  name: string,
  schema: S,
): z.output<S> {
  const raw = config.builtins[name] ?? {};
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ConfigError(
    describeIssue({ ...issue, path: ['builtins', name, ...issue.path] }, { builtins: { [name]: raw } }),
  );
}

function readConfigFile(path: string, required: boolean): Record<string, unknown> {
  if (!existsSync(path)) {
    if (required) throw new ConfigError(`Configuration file ${path} (TOOLGATE_CONFIG) does not exist`);
    return {};
  }
  try {
    const parsed: unknown = parseYaml(readFileSync(path, 'utf8'));
    if (parsed === null || parsed === undefined) return {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the top level must be a mapping');
    return parsed as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`Configuration file ${path} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
}

function envOverrides(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, path] of Object.entries(ENV_ALIASES)) {
    const value = env[name];
    if (value !== undefined && value !== '') setPath(result, path, parseEnvValue(value));
  }
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || NOT_KEYS.has(name) || value === undefined || value === '') continue;
    const path = name.slice(ENV_PREFIX.length).toLowerCase().split(NESTING);
    setPath(result, path, parseEnvValue(value));
  }
  return result;
}

/** Lists and mappings (`[a, b]`, `{a: 1}`) are read as YAML; scalars stay text for the schema to convert. */
function parseEnvValue(value: string): unknown {
  const trimmed = value.trim();
  if (!trimmed.startsWith('[') && !trimmed.startsWith('{')) return value;
  try {
    return parseYaml(trimmed);
  } catch {
    return value;
  }
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

/** Merges `extra` into `base`: mappings merge key by key, anything else replaces. */
export function deepMerge(base: Record<string, unknown>, extra: object): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = result[key];
    const bothObjects = isPlainObject(current) && isPlainObject(value);
    result[key] = bothObjects ? deepMerge(current, value) : value;
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const key = issue.path.map(String).join('.') || '(root)';
  const envName = ENV_PREFIX + issue.path.map((p) => String(p).toUpperCase()).join(NESTING);
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length ? `${key}.` : '';
    const names = issue.keys.map((k) => where + k).join(', ');
    return `Invalid configuration: unknown key ${names}; see config.example.yaml for the keys that exist`;
  }
  const value = valueAt(raw, issue.path);
  const shown = value === undefined ? 'missing' : SECRET_KEYS.has(key) ? '(hidden)' : JSON.stringify(value);
  return `Invalid configuration: ${key} = ${shown}: ${issue.message} (set it in config.yaml or ${envName})`;
}

function valueAt(raw: unknown, path: PropertyKey[]): unknown {
  let node: unknown = raw;
  for (const key of path) {
    if (!isPlainObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key as string];
  }
  return node;
}

export const POLICY_REDACTED = '[REDACTED:policy]';

/**
 * A copy of `args` with the value at each dot-separated path replaced; only the objects on a path are copied.
 * A path that does not lead to a value changes nothing.
 */
export function redactPaths(args: unknown, paths: string[]): unknown {
  let result = args;
  for (const path of paths) result = redactPath(result, path.split('.'));
  return result;
}

function redactPath(value: unknown, keys: string[]): unknown {
  if (keys.length === 0) return POLICY_REDACTED;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const [key, ...rest] = keys;
  if (!Object.hasOwn(value, key)) return value;
  const copy = { ...(value as Record<string, unknown>) };
  Object.defineProperty(copy, key, {
    value: redactPath((value as Record<string, unknown>)[key], rest),
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return copy;
}

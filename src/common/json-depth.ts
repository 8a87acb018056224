/** One value still to visit, with a link to its container so the path is only spelled out on failure. */
interface Pending {
  value: unknown;
  depth: number;
  key: string | number | null;
  parent: Pending | null;
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_PATH_LENGTH = 512;

/**
 * The path (e.g. `arguments.a[0].b`) of the first object or array nested more than `maxDepth` levels deep
 * in `value`, or undefined when it is within the limit. The top-level object or array is level 1.
 *
 * Iterative with an explicit stack, so it never overflows the call stack itself; it is meant to run before
 * anything recursive (class-transformer, ajv, JSON.stringify, the audit redactor) sees a parsed value.
 * It descends only as far as `maxDepth + 1`, so its cost is bounded by the size of the value.
 */
export function findTooDeep(value: unknown, maxDepth: number, root = ''): string | undefined {
  const stack: Pending[] = [{ value, depth: 1, key: null, parent: null }];
  while (stack.length > 0) {
    const item = stack.pop() as Pending;
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth > maxDepth) return pathOf(item, root);
    if (Array.isArray(item.value)) {
      item.value.forEach((inner, index) =>
        stack.push({ value: inner, depth: item.depth + 1, key: index, parent: item }),
      );
    } else {
      for (const [key, inner] of Object.entries(item.value as Record<string, unknown>)) {
        stack.push({ value: inner, depth: item.depth + 1, key, parent: item });
      }
    }
  }
  return undefined;
}

/**
 * True when PostgreSQL can store the string in `text` and `jsonb`: it has no U+0000 and no unpaired surrogate
 * (JSON can carry both as escapes; PostgreSQL refuses them, which would otherwise surface as a 500 on insert).
 */
export const isStorableString = (text: string): boolean => !text.includes('\u0000') && text.isWellFormed();

/** `text` with each NUL and each unpaired surrogate replaced by U+FFFD, the way a decoder shows bytes it cannot read. */
export const storableText = (text: string): string =>
  isStorableString(text) ? text : text.replaceAll('\u0000', '\uFFFD').toWellFormed();

/**
 * `value` (JSON) with every key and string PostgreSQL cannot store repaired by storableText. What upstreams send
 * (tool results, model output) is stored as it came, so a server answering a NUL must not turn into a failed
 * insert. The common case, nothing to repair, is one linear scan and returns `value` itself; otherwise the copy
 * is made by the native JSON parser, bottom-up. Run it after the depth check.
 */
export function storableJson<T>(value: T): T {
  if (findUnstorableString(value) === undefined) return value;
  return JSON.parse(JSON.stringify(value), (_key, inner: unknown) => {
    if (typeof inner === 'string') return storableText(inner);
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    const entries = Object.entries(inner);
    return entries.every(([key]) => isStorableString(key))
      ? inner
      : Object.fromEntries(entries.map(([key, field]) => [storableText(key), field]));
  }) as T;
}

/**
 * The path of the first string (key or value) in `value` that PostgreSQL cannot store, or undefined. Iterative
 * and linear in the size of the value; run it after the depth check.
 */
export function findUnstorableString(value: unknown, root = ''): string | undefined {
  const stack: Pending[] = [{ value, depth: 1, key: null, parent: null }];
  while (stack.length > 0) {
    const item = stack.pop() as Pending;
    if (typeof item.value === 'string') {
      if (!isStorableString(item.value)) return pathOf(item, root);
      continue;
    }
    if (item.value === null || typeof item.value !== 'object') continue;
    if (Array.isArray(item.value)) {
      item.value.forEach((inner, index) =>
        stack.push({ value: inner, depth: item.depth + 1, key: index, parent: item }),
      );
    } else {
      for (const [key, inner] of Object.entries(item.value as Record<string, unknown>)) {
        const entry: Pending = { value: inner, depth: item.depth + 1, key, parent: item };
        if (!isStorableString(key)) return pathOf(entry, root);
        stack.push(entry);
      }
    }
  }
  return undefined;
}

/** True when `value` is nested no more than `maxDepth` levels deep. */
export const withinDepth = (value: unknown, maxDepth: number): boolean => findTooDeep(value, maxDepth) === undefined;

function pathOf(item: Pending, root: string): string {
  const segments: string[] = [];
  for (let at: Pending | null = item; at?.parent; at = at.parent) {
    const key = at.key as string | number;
    segments.push(typeof key === 'number' ? `[${key}]` : PLAIN_KEY.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);
  }
  const path = (root + segments.reverse().join('')).replace(/^\./, '');
  return path.length > MAX_PATH_LENGTH ? `${path.slice(0, MAX_PATH_LENGTH)}...` : path || '(body)';
}

import type { Format } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import { RE2 } from 're2-wasm';

/**
 * Regular expressions from tool schemas (`pattern`, `patternProperties`) are written by third parties and
 * run against caller input. JavaScript's backtracking engine can take exponential time on them
 * (`^(a+)+$` against `aaaa…!`) and would block the whole process. RE2 matches in time linear in the
 * input, whatever the pattern; patterns it cannot run (lookaround, backreferences) are refused instead.
 *
 * Compiled programs live in the WebAssembly heap and re2-wasm cannot free them, so each distinct pattern is
 * compiled once per process and shared, like the validators that use it.
 */
const compiled = new Map<string, RE2>();

export function linearRegExp(pattern: string, flags = ''): RE2 {
  // RE2 only runs in Unicode mode, which is also how JSON Schema patterns are meant to be read.
  const unicodeFlags = flags.includes('u') ? flags : `${flags}u`;
  const key = `${unicodeFlags}/${pattern}`;
  let regExp = compiled.get(key);
  if (!regExp) {
    regExp = new RE2(pattern, unicodeFlags);
    compiled.set(key, regExp);
  }
  return regExp;
}

/** The message when a pattern cannot run in linear time, or undefined when it can. */
export function unsupportedPattern(pattern: string): string | undefined {
  try {
    linearRegExp(pattern);
    return undefined;
  } catch (error) {
    const reason = (error as Error).message.replace(/^Invalid regular expression: \/.*\/u?: /s, '');
    return `pattern ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 79)}…` : pattern)} cannot be matched in linear time (${reason}); lookaround and backreferences are not supported`;
  }
}

/** ajv's `code.regExp` option: every schema pattern is compiled by RE2. */
export const linearRegExpEngine: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => linearRegExp(pattern, flags),
  { code: 'linearRegExp' },
);

/**
 * Longest value checked by a format whose built-in expression uses lookaround (and so cannot run on RE2): a
 * bound on the input is what keeps a backtracking match cheap. Host names are at most 253 characters (RFC 1035).
 */
const BACKTRACKING_FORMAT_LIMITS: Record<string, number> = { hostname: 253, duration: 64, url: 2048 };

/**
 * ajv-formats' regular-expression formats, moved onto RE2; the few it cannot compile keep their expression but
 * only see values of bounded length (longer ones do not match the format).
 */
export function linearFormats(formats: Record<string, Format | undefined>): Record<string, Format> {
  const moved: Record<string, Format> = {};
  for (const [name, format] of Object.entries(formats)) {
    const expression = format instanceof RegExp ? format : undefined;
    if (!expression) continue;
    let regExp: { test(value: string): boolean };
    try {
      regExp = linearRegExp(expression.source, expression.flags);
    } catch {
      const limit = BACKTRACKING_FORMAT_LIMITS[name] ?? 256;
      regExp = { test: (value) => value.length <= limit && expression.test(value) };
    }
    moved[name] = { type: 'string', validate: (value: string) => regExp.test(value) };
  }
  return moved;
}

import { formatMatches, formatOfMatch, isAssignedSecret, SECRET_ASSIGNMENT_PATTERN } from './secret-formats';
import type { StoredSecretIndex } from './stored-secret-index';

export interface SecretFinding {
  /** The format (`aws_access_key`, `jwt`, ...), `stored_credential` or `high_entropy_secret`. */
  kind: string;
  /** Where the value sits: `arguments.message.body`, `output.content[0].text`. */
  path: string;
  /** A value Toolgate holds (a tenant credential, a source secret, one of its API keys). */
  stored: boolean;
  /** Stored secrets: which one (`credential:github_token`), never its value. */
  name?: string;
}

export interface SecretScan {
  findings: SecretFinding[];
  /** A copy of the value with every finding replaced by `[REDACTED:<kind>]`; the value itself when clean. */
  redacted: unknown;
  /** Whether the caps stopped the walk before every string was read. */
  truncated: boolean;
}

export interface ScanLimits {
  /** Characters read over all strings; the rest is not scanned. */
  maxChars: number;
  /** Values visited (objects, arrays, strings, numbers). */
  maxNodes: number;
}

/** Fields whose name says they hold a secret: a high-entropy value there is one even without a known format. */
/** Fields named like secrets that hold opaque but public values (pagination cursors). */
const NOT_SECRET_FIELD = /page[-_]?token|continuation[-_]?token|sync[-_]?token|cursor/i;
const SECRET_FIELD =
  /(?:^|[^a-z])(?:pass(?:word|wd|phrase)?|secret|token|api[-_]?key|apikey|auth(?:orization)?|credential|private[-_]?key|access[-_]?key|session[-_]?id|bearer)(?:$|[^a-z])/i;
const HIGH_ENTROPY_MIN_LENGTH = 16;
const HIGH_ENTROPY_MAX_LENGTH = 512;
const HIGH_ENTROPY_BITS = 3.5;

interface Span {
  start: number;
  end: number;
  finding: SecretFinding;
}

interface Pending {
  value: unknown;
  path: string;
  field: string;
  /** Where the (possibly redacted) copy goes. */
  parent?: Record<string, unknown> | unknown[];
  key?: string | number;
}

/**
 * Reads every string of a JSON value at any depth for secrets: credential formats, values of stored secrets
 * (each index in `stored`) and high-entropy values in secret-named fields. Iterative and capped (characters
 * and nodes), so a hostile value costs at most the caps and time linear in what it reads. The containers are
 * copied as they are walked, so the redacted copy costs no second pass. `onSecret` receives each secret
 * found (for the chain memory), never kept here.
 */
export function scanForSecrets(
  value: unknown,
  root: string,
  stored: StoredSecretIndex[],
  limits: ScanLimits,
  onSecret?: (secret: string) => void,
): SecretScan {
  const findings: SecretFinding[] = [];
  const holder: { value?: unknown } = {};
  const stack: Pending[] = [{ value, path: root, field: '', parent: holder as Record<string, unknown>, key: 'value' }];
  let chars = 0;
  let nodes = 0;
  let truncated = false;
  let changed = false;
  while (stack.length > 0) {
    const item = stack.pop()!;
    nodes += 1;
    if (nodes > limits.maxNodes || chars >= limits.maxChars) {
      truncated = true;
      place(item, item.value);
      continue;
    }
    const current = item.value;
    if (typeof current === 'string') {
      const readable = current.length <= limits.maxChars - chars ? current : current.slice(0, limits.maxChars - chars);
      if (readable.length < current.length) truncated = true;
      chars += readable.length;
      const spans = spansIn(readable, item, stored);
      if (spans.length > 0) {
        changed = true;
        for (const span of spans) {
          findings.push(span.finding);
          onSecret?.(readable.slice(span.start, span.end));
        }
        place(item, redactSpans(current, spans));
      } else place(item, current);
    } else if (Array.isArray(current)) {
      const copy: unknown[] = new Array(current.length);
      place(item, copy);
      for (let i = current.length - 1; i >= 0; i--)
        stack.push({ value: current[i], path: `${item.path}[${i}]`, field: item.field, parent: copy, key: i });
    } else if (current !== null && typeof current === 'object') {
      const copy: Record<string, unknown> = {};
      place(item, copy);
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        stack.push({
          value: (current as Record<string, unknown>)[key],
          path: `${item.path}.${key}`,
          field: key,
          parent: copy,
          key,
        });
      }
    } else place(item, current);
  }
  return { findings, redacted: changed ? holder.value : value, truncated };
}

function place(item: Pending, value: unknown): void {
  if (!item.parent) return;
  if (Array.isArray(item.parent)) item.parent[item.key as number] = value;
  // defineProperty, so that a key named __proto__ stays data.
  else
    Object.defineProperty(item.parent, item.key as string, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
}

function spansIn(text: string, item: Pending, stored: StoredSecretIndex[]): Span[] {
  const spans = plainSpansIn(text, item, stored);
  if (spans.length > 0 || !text.includes('%')) return spans;
  // A secret sent in a URL is percent-encoded; read the decoded text too. Its findings cover the whole string,
  // since their places in the encoded form are not known.
  const decoded = percentDecoded(text);
  if (decoded === text) return spans;
  return plainSpansIn(decoded, item, stored)
    .slice(0, 1)
    .map((span) => ({ ...span, start: 0, end: text.length }));
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function plainSpansIn(text: string, item: Pending, stored: StoredSecretIndex[]): Span[] {
  const spans: Span[] = [];
  for (const index of stored) {
    for (const match of index.find(text)) {
      if (spans.some((span) => span.start < match.end && match.start < span.end)) continue;
      const finding = { kind: index.kind, path: item.path, stored: true, name: match.name };
      spans.push({ start: match.start, end: match.end, finding });
    }
  }
  for (const match of formatMatches(text)) {
    const start = match.index;
    const end = start + match[0].length;
    if (!spans.some((span) => span.start < end && start < span.end)) {
      const format = formatOfMatch(match);
      spans.push({ start, end, finding: { kind: format.kind, path: item.path, stored: format.stored === true } });
    }
  }
  SECRET_ASSIGNMENT_PATTERN.lastIndex = 0;
  for (let match = SECRET_ASSIGNMENT_PATTERN.exec(text); match; match = SECRET_ASSIGNMENT_PATTERN.exec(text)) {
    const end = match.index + match[0].length;
    const start = end - match[1].length;
    if (!isAssignedSecret(match[1]) || spans.some((span) => span.start < end && start < span.end)) continue;
    spans.push({ start, end, finding: { kind: 'secret_assignment', path: item.path, stored: false } });
  }
  if (spans.length === 0 && SECRET_FIELD.test(item.field) && !NOT_SECRET_FIELD.test(item.field) && looksRandom(text)) {
    spans.push({
      start: 0,
      end: text.length,
      finding: { kind: 'high_entropy_secret', path: item.path, stored: false },
    });
  }
  return spans.sort((a, b) => a.start - b.start);
}

function redactSpans(text: string, spans: Span[]): string {
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + `[REDACTED:${span.finding.kind}]`;
    at = span.end;
  }
  return out + text.slice(at);
}

/** A single token (no whitespace) with the character spread of random data: Shannon entropy per character. */
function looksRandom(text: string): boolean {
  if (text.length < HIGH_ENTROPY_MIN_LENGTH || text.length > HIGH_ENTROPY_MAX_LENGTH || /\s/.test(text)) return false;
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits >= HIGH_ENTROPY_BITS;
}

import { revealedText } from './revealed-text';
import { DEFAULT_SECRET_KEYS } from './secret-key-names';

export const REDACTED = '[REDACTED]';

/**
 * Values that are credentials whatever key they sit under. Each pattern must stay linear on hostile text:
 * a lookbehind pins where a run may start, so two attempts never rescan the same characters.
 */
const CREDENTIAL_PATTERNS: RegExp[] = [
  /\bBearer\s+[A-Za-z0-9\-._~+/]{8,}=*/gi,
  /\bBasic\s+[A-Za-z0-9+/]{8,}=*/g,
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g,
  /\bsk-(proj-|ant-)?[A-Za-z0-9_-]{20,}\b/g,
  /\bsk_(live|test)_[A-Za-z0-9]{16,}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g,
  /\btg_[A-Za-z0-9_-]{20,}\b/g,
  /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/[^:/\s@]+:[^@/\s]+@/gi,
];

const PRIVATE_KEY_BEGIN = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/g;
const PRIVATE_KEY_END = /-----END [A-Z ]{0,40}PRIVATE KEY-----/g;

/** One container still to copy: its source, and where in the copy its redacted form goes. */
interface Pending {
  source: unknown;
  target: Record<string, unknown> | unknown[];
  key: string | number;
}

/** An array element this long or shorter may name the secret that follows it, as in `["password", "x"]`. */
const MAX_PAIR_NAME = 64;
/** Secret names this short match in free text only as a word of their own: `pin=` but not `spin=`. */
const MAX_SHORT_NAME = 4;

/**
 * Replaces secrets before anything is stored: values under secret-like keys (matched as whole words of
 * the key, so `api_key` and `x-api-key` match but `monkey` does not) at any depth, the element after a
 * secret name in an array, credential-shaped text anywhere, and `password=...` / `secret: ...` /
 * `"password", "x"` inside free text. Text is also read decoded (see `revealedText`): a secret hidden by an
 * encoding is stored decoded and redacted, since it cannot be cut out of the encoded form.
 */
export class Redactor {
  private readonly keyPattern: RegExp;
  private readonly assignmentPattern: RegExp;

  constructor(secretKeys: string[] = DEFAULT_SECRET_KEYS) {
    const word = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, '[^a-z0-9]?');
    const words = secretKeys.map(word);
    this.keyPattern = new RegExp(`(^|[^a-z0-9])(${words.join('|')})($|[^a-z0-9])`, 'i');
    const short = secretKeys.filter((key) => key.replace(/[^a-z0-9]/gi, '').length <= MAX_SHORT_NAME).map(word);
    const long = secretKeys.filter((key) => key.replace(/[^a-z0-9]/gi, '').length > MAX_SHORT_NAME).map(word);
    const name =
      [short.length && `(?<![a-z0-9])(?:${short.join('|')})`, long.length && `(?:${long.join('|')})`]
        .filter(Boolean)
        .join('|') || '(?!)';
    // The key word, then `=` or `:` after an optional closing quote, or `,` after a closing quote (a quoted
    // pair), with bounded spacing, then the value up to a delimiter. Nothing after the value can fail, so a
    // match never backtracks over it.
    this.assignmentPattern = new RegExp(
      `(${name})((?:["']?[ \\t]{0,8}[:=]|["'][ \\t]{0,8},)[ \\t]{0,8}["']?)[^\\s"'&;,]+`,
      'gi',
    );
  }

  /** A redacted copy of `value`. Iterative, so no depth of nesting can overflow the stack. */
  redact(value: unknown): unknown {
    const root: unknown[] = [undefined];
    const copies = new Map<object, unknown>();
    const stack: Pending[] = [{ source: value, target: root, key: 0 }];
    while (stack.length > 0) {
      const { source, target, key } = stack.pop() as Pending;
      const copy = this.shallowCopy(source, copies, stack);
      if (typeof key === 'number') (target as unknown[])[key] = copy;
      else setOwn(target as Record<string, unknown>, key, copy);
    }
    return root[0];
  }

  redactText(text: string): string {
    const redacted = this.redactPlainText(text);
    const revealed = revealedText(redacted);
    if (revealed === redacted) return redacted;
    const redactedRevealed = this.redactPlainText(revealed);
    return redactedRevealed === revealed ? redacted : redactedRevealed;
  }

  private redactPlainText(text: string): string {
    const withoutKeys = redactPrivateKeys(text);
    const withoutCredentials = CREDENTIAL_PATTERNS.reduce(
      (result, pattern) => result.replace(pattern, REDACTED),
      withoutKeys,
    );
    return withoutCredentials.replace(this.assignmentPattern, `$1$2${REDACTED}`);
  }

  /** Copies one level of `source`, queueing its containers; a container met twice is copied once. */
  private shallowCopy(source: unknown, copies: Map<object, unknown>, stack: Pending[]): unknown {
    if (typeof source === 'string') return this.redactText(source);
    if (source === null || typeof source !== 'object') return source;
    const known = copies.get(source);
    if (known !== undefined) return known;
    const plain = toPlain(source);
    if (plain !== source) return this.shallowCopy(plain, copies, stack);
    if (Array.isArray(source)) {
      const copy: unknown[] = new Array<unknown>(source.length);
      copies.set(source, copy);
      source.forEach((inner, index) => {
        if (index > 0 && this.namesSecret(source[index - 1]) && isSecretValue(inner)) copy[index] = REDACTED;
        else stack.push({ source: inner, target: copy, key: index });
      });
      return copy;
    }
    const copy: Record<string, unknown> = {};
    copies.set(source, copy);
    for (const [key, inner] of Object.entries(source as Record<string, unknown>)) {
      if (this.isSecretKey(key) && isSecretValue(inner)) {
        setOwn(copy, key, REDACTED);
      } else {
        // Claims the key's place now, so the copy keeps the source's key order.
        setOwn(copy, key, null);
        stack.push({ source: inner, target: copy, key });
      }
    }
    return copy;
  }

  private isSecretKey(key: string): boolean {
    return this.keyPattern.test(revealedText(key).replace(/([a-z])([A-Z])/g, '$1_$2'));
  }

  /** `"password"` in `["password", "x"]`: a short string that is a secret key's name. */
  private namesSecret(element: unknown): boolean {
    return typeof element === 'string' && element.length <= MAX_PAIR_NAME && this.isSecretKey(element);
  }
}

/** Values worth hiding: an empty or missing one says nothing, and hiding it would hide that. */
function isSecretValue(value: unknown): boolean {
  return value !== null && value !== undefined && value !== '';
}

/** Dates and other values with toJSON are stored as what they serialize to. */
function toPlain(value: object): unknown {
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  return typeof toJSON === 'function' ? (toJSON as () => unknown).call(value) : value;
}

/** `__proto__` from parsed JSON is an ordinary key; plain assignment would set the prototype instead. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * PEM private keys, BEGIN through END. A scan instead of a lazy regex: once no END follows, no later
 * BEGIN can have one either, so each character is looked at a bounded number of times.
 */
function redactPrivateKeys(text: string): string {
  if (!text.includes('PRIVATE KEY-----')) return text;
  const begin = new RegExp(PRIVATE_KEY_BEGIN.source, 'g');
  const end = new RegExp(PRIVATE_KEY_END.source, 'g');
  let result = '';
  let copied = 0;
  for (let start = begin.exec(text); start; start = begin.exec(text)) {
    end.lastIndex = begin.lastIndex;
    const finish = end.exec(text);
    if (!finish) break;
    result += text.slice(copied, start.index) + REDACTED;
    copied = end.lastIndex;
    begin.lastIndex = copied;
  }
  return result + text.slice(copied);
}

/** Keys whose values are secrets wherever they appear in arguments or output. */
export const DEFAULT_SECRET_KEYS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'api_key',
  'apikey',
  'authorization',
  'auth',
  'credential',
  'credentials',
  'private_key',
  'access_key',
  'client_secret',
  'cookie',
  'session',
  'ssn',
];

export const REDACTED = '[REDACTED]';

/** Values that are credentials whatever key they sit under. */
const CREDENTIAL_PATTERNS: RegExp[] = [
  /\bBearer\s+[A-Za-z0-9\-._~+/]{8,}=*/gi,
  /\bBasic\s+[A-Za-z0-9+/]{8,}=*/g,
  /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g,
  /\bsk-(proj-|ant-)?[A-Za-z0-9_-]{20,}\b/g,
  /\bsk_(live|test)_[A-Za-z0-9]{16,}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g,
  /\btg_[A-Za-z0-9_-]{20,}\b/g,
  /\b[a-z][a-z0-9+.-]*:\/\/[^:/\s@]+:[^@/\s]+@/gi,
];

/**
 * Replaces secrets before anything is stored: values under secret-like keys (matched as whole words of
 * the key, so `api_key` and `x-api-key` match but `monkey` does not) and credential-shaped text anywhere.
 */
export class Redactor {
  private readonly keyPattern: RegExp;

  constructor(secretKeys: string[] = DEFAULT_SECRET_KEYS) {
    const words = secretKeys.map((key) => key.toLowerCase().replace(/[^a-z0-9]/g, '[^a-z0-9]?'));
    this.keyPattern = new RegExp(`(^|[^a-z0-9])(${words.join('|')})($|[^a-z0-9])`, 'i');
  }

  redact(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redactText(value);
    if (Array.isArray(value)) return value.map((item) => this.redact(item, depth + 1));
    if (value && typeof value === 'object' && depth < 64) {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([key, inner]) => [
          key,
          this.isSecretKey(key) && inner !== null && inner !== undefined && inner !== ''
            ? REDACTED
            : this.redact(inner, depth + 1),
        ]),
      );
    }
    return value;
  }

  redactText(text: string): string {
    return CREDENTIAL_PATTERNS.reduce((result, pattern) => result.replace(pattern, REDACTED), text);
  }

  private isSecretKey(key: string): boolean {
    return this.keyPattern.test(key.replace(/([a-z])([A-Z])/g, '$1_$2'));
  }
}

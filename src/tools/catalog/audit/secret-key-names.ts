import sensitiveFields from 'sensitive-fields';

/**
 * Names too generic for a whole-word match on keys and `name=value` text: `key` would take every key-value
 * store's `{"key": "user:42"}`, `raw` every raw payload, and certificates are public.
 */
const TOO_GENERIC = new Set(['key', 'raw', 'cert', 'certificate', 'issuer_certificate']);

/** Ours: header and cookie names, and what the maintained list leaves out. */
const OWN_SECRET_KEYS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'api_key',
  'apikey',
  'authorization',
  'auth',
  'bearer',
  'credential',
  'credentials',
  'private_key',
  'access_key',
  'client_secret',
  'cookie',
  'session',
  'session_id',
  'ssn',
];

/**
 * Keys whose values are secrets wherever they appear in arguments or output: ours plus the names of
 * `sensitive-fields` (the list the Cabin logger masks). That list spells each name several ways
 * (`access_token`, `accessToken`, `Access token`, `fieldAccessToken`, ...); the matcher already treats
 * camelCase, kebab-case and prefixed forms as the same word, so one spelling each is kept, with its word breaks.
 */
export const DEFAULT_SECRET_KEYS: string[] = [...new Set([...OWN_SECRET_KEYS, ...maintainedNames()])];

function maintainedNames(): string[] {
  const byWord = new Map<string, string>();
  for (const name of sensitiveFields) {
    if (!/^[a-z0-9]+(_[a-z0-9]+)*$/.test(name)) continue;
    const word = name.replace(/_/g, '');
    if (/^(field|input)|(field|input)$/.test(word) || TOO_GENERIC.has(name)) continue;
    if (!byWord.has(word) || name.includes('_')) byWord.set(word, name);
  }
  return [...byWord.values()];
}

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../../config/config.loader';
import type { Config } from '../../../config/config.schema';
import { EncryptionKey, encryptionKey, KEY_BYTES, KeyRing } from './credential-cipher';

/** Written into the data directory when the embedded database runs without a configured key. */
export const GENERATED_KEY_FILE = 'encryption.key';

const GENERATE_HINT = '`openssl rand -base64 32`';
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export interface KeyLoadingContext {
  config: Pick<Config, 'secrets' | 'data_dir'>;
  /** The embedded database (no database.url): a key may be generated into the data directory. */
  embedded: boolean;
  /** How many credential rows exist; asked before generating a key, so a lost key file is not silently replaced. */
  countCredentials: () => Promise<number>;
  logger: { warn(message: string): void; log(message: string): void };
}

/**
 * Builds the key ring from `secrets.*`: the current key (`encryption_key` or `encryption_key_file`) and
 * earlier ones (`previous_keys`, `previous_key_files`). Key material never appears in a message. Without a
 * configured key, the embedded database gets one generated once into `<data_dir>/encryption.key` (mode
 * 0600); an external database must be given one.
 */
export async function loadKeyRing(context: KeyLoadingContext): Promise<KeyRing> {
  const { secrets } = context.config;
  const previous = [
    ...listOfKeys(secrets.previous_keys).map((text) =>
      keyFromBase64(text, 'secrets.previous_keys', 'TOOLGATE_SECRETS__PREVIOUS_KEYS'),
    ),
    ...secrets.previous_key_files.map((file) => keyFromFile(file, 'secrets.previous_key_files')),
  ];
  return new KeyRing(await currentKey(context), previous);
}

async function currentKey(context: KeyLoadingContext): Promise<EncryptionKey> {
  const { secrets } = context.config;
  const given = secrets.encryption_key;
  const hasKey = given !== undefined && given !== null && given !== '';
  if (hasKey && secrets.encryption_key_file) {
    throw new ConfigError(
      'Invalid configuration: secrets.encryption_key and secrets.encryption_key_file are both set: keep one',
    );
  }
  if (hasKey) {
    if (typeof given !== 'string') throw invalidKey('secrets.encryption_key', 'TOOLGATE_SECRETS__ENCRYPTION_KEY');
    return keyFromBase64(given, 'secrets.encryption_key', 'TOOLGATE_SECRETS__ENCRYPTION_KEY');
  }
  if (secrets.encryption_key_file) return keyFromFile(secrets.encryption_key_file, 'secrets.encryption_key_file');
  if (!context.embedded) {
    throw new ConfigError(
      'Invalid configuration: secrets.encryption_key = missing: tenant credentials are encrypted at rest and an ' +
        `external database (database.url) needs a configured key: generate one with ${GENERATE_HINT} and set ` +
        'TOOLGATE_SECRETS__ENCRYPTION_KEY, or mount it as a file and set secrets.encryption_key_file ' +
        '(TOOLGATE_SECRETS__ENCRYPTION_KEY_FILE)',
    );
  }
  return embeddedKey(context);
}

/** The generated key of the embedded database: read when present, created (once) otherwise. */
async function embeddedKey(context: KeyLoadingContext): Promise<EncryptionKey> {
  const path = resolve(join(context.config.data_dir, GENERATED_KEY_FILE));
  const advice =
    'back it up with the data directory (stored credentials cannot be read without it), or configure your own key ' +
    `with secrets.encryption_key / TOOLGATE_SECRETS__ENCRYPTION_KEY (${GENERATE_HINT})`;
  if (existsSync(path)) {
    const key = keyFromFile(path, 'the generated key file');
    if ((statSync(path).mode & 0o077) !== 0) {
      context.logger.warn(`${path} is readable by other users: restrict it with chmod 600`);
    }
    context.logger.log(`Tenant credentials are encrypted with the generated key in ${path}; ${advice}`);
    return key;
  }
  const stored = await context.countCredentials();
  if (stored > 0) {
    throw new ConfigError(
      `Invalid configuration: secrets.encryption_key = missing: the database holds ${stored} tenant credential(s) ` +
        `but ${path}, the key they were encrypted with, is gone: restore that file or configure the key as ` +
        'secrets.encryption_key (a new key would leave them unreadable)',
    );
  }
  const material = randomBytes(KEY_BYTES);
  try {
    writeFileSync(path, `${material.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Another process of the same data directory won the race: use its key.
    if (code === 'EEXIST') return keyFromFile(path, 'the generated key file');
    throw new ConfigError(`Invalid configuration: cannot write the generated encryption key to ${path} (${code})`);
  }
  context.logger.warn(
    `No encryption key configured: generated one for tenant credentials in ${path} (mode 0600); ${advice}`,
  );
  return encryptionKey(material);
}

function keyFromBase64(text: string, key: string, envName?: string): EncryptionKey {
  const trimmed = text.trim();
  const material = BASE64.test(trimmed) ? Buffer.from(trimmed, 'base64') : undefined;
  if (!material || material.length !== KEY_BYTES) throw invalidKey(key, envName);
  return encryptionKey(material);
}

/** A key file holds base64 text (a trailing newline is fine) or exactly 32 raw bytes. */
function keyFromFile(path: string, key: string): EncryptionKey {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`Invalid configuration: ${key} = ${JSON.stringify(path)}: cannot read it (${reason})`);
  }
  if (content.length === KEY_BYTES) return encryptionKey(content);
  const text = content.toString('utf8').trim();
  const material = BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
  if (!material || material.length !== KEY_BYTES) {
    throw new ConfigError(
      `Invalid configuration: ${key} = ${JSON.stringify(path)}: the file must hold ${KEY_BYTES} random bytes, ` +
        `raw or base64-encoded (create it with ${GENERATE_HINT})`,
    );
  }
  return encryptionKey(material);
}

function invalidKey(key: string, envName?: string): ConfigError {
  const where = envName ? ` (set it in config.yaml or ${envName})` : '';
  return new ConfigError(
    `Invalid configuration: ${key} = (hidden): expected the base64 encoding of ${KEY_BYTES} random bytes, ` +
      `e.g. the output of ${GENERATE_HINT}${where}`,
  );
}

/** `previous_keys` as a list, or as text with keys separated by commas or white space. */
function listOfKeys(value: unknown): string[] {
  if (value === undefined || value === null || value === '') return [];
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  throw invalidKey('secrets.previous_keys', 'TOOLGATE_SECRETS__PREVIOUS_KEYS');
}

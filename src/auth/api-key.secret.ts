import { createHash } from 'node:crypto';
import { randomToken } from '../common/ids';

export const API_KEY_PREFIX = 'tg_';

export function generateApiKeySecret(): string {
  return API_KEY_PREFIX + randomToken(40);
}

export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** What lists show instead of the secret: enough characters to recognise it, far too few to use it. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, API_KEY_PREFIX.length + 6);
}

import { readFileSync } from 'node:fs';
import { ConfigError } from './config.loader';

/**
 * The secret held by a mounted file named in the config (`*_api_key_file`), trimmed. An unreadable or empty
 * file stops start-up with a line naming the key, as a secret the operator pointed at must not silently vanish.
 */
export function readSecretFile(configKey: string, path: string): string {
  const where = `Invalid configuration: ${configKey} = ${JSON.stringify(path)}`;
  let secret: string;
  try {
    secret = readFileSync(path, 'utf8').trim();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`${where}: cannot read it (${reason})`);
  }
  if (!secret) throw new ConfigError(`${where}: the file is empty`);
  return secret;
}

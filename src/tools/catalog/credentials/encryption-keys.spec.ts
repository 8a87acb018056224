import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../config/config.loader';
import { keyId } from './credential-cipher';
import { GENERATED_KEY_FILE, KeyLoadingContext, loadKeyRing } from './encryption-keys';

describe('loading the encryption keys', () => {
  let dir: string;
  const logger = { warn: jest.fn(), log: jest.fn() };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-keys-'));
    logger.warn.mockReset();
    logger.log.mockReset();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const context = (secrets: Record<string, unknown>, embedded = false, stored = 0): KeyLoadingContext => ({
    config: { data_dir: dir, secrets: { previous_key_files: [], strict_secrets: false, ...secrets } },
    embedded,
    countCredentials: () => Promise.resolve(stored),
    logger,
  });

  async function configError(secrets: Record<string, unknown>, embedded = false, stored = 0): Promise<string> {
    try {
      await loadKeyRing(context(secrets, embedded, stored));
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('expected a ConfigError');
  }

  it('takes the current key from base64 and earlier ones from a list or comma-separated text', async () => {
    const [current, old1, old2] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const ring = await loadKeyRing(
      context({
        encryption_key: current.toString('base64'),
        previous_keys: `${old1.toString('base64')},${old2.toString('base64')}`,
      }),
    );
    expect(ring.ids).toEqual([keyId(current), keyId(old1), keyId(old2)]);
    const listed = await loadKeyRing(
      context({ encryption_key: current.toString('base64'), previous_keys: [old1.toString('base64')] }),
    );
    expect(listed.ids).toEqual([keyId(current), keyId(old1)]);
  });

  it('reads key files holding base64 text (with a newline) or 32 raw bytes', async () => {
    const [text, raw] = [randomBytes(32), randomBytes(32)];
    writeFileSync(join(dir, 'current.key'), `${text.toString('base64')}\n`);
    writeFileSync(join(dir, 'old.key'), raw);
    const ring = await loadKeyRing(
      context({ encryption_key_file: join(dir, 'current.key'), previous_key_files: [join(dir, 'old.key')] }),
    );
    expect(ring.ids).toEqual([keyId(text), keyId(raw)]);
  });

  it('refuses a malformed key without printing it', async () => {
    const message = await configError({ encryption_key: 'not-a-key-but-a-secret' });
    expect(message).toMatch(/^Invalid configuration: secrets\.encryption_key = \(hidden\): expected the base64/);
    expect(message).toContain('openssl rand -base64 32');
    expect(message).not.toContain('not-a-key-but-a-secret');
    const short = randomBytes(16).toString('base64');
    expect(await configError({ encryption_key: short })).not.toContain(short);
    const previous = await configError({ encryption_key: randomBytes(32).toString('base64'), previous_keys: 'oops' });
    expect(previous).toMatch(/secrets\.previous_keys = \(hidden\)/);
  });

  it('names an unreadable or malformed key file', async () => {
    expect(await configError({ encryption_key_file: join(dir, 'absent.key') })).toMatch(/cannot read it \(ENOENT\)/);
    writeFileSync(join(dir, 'bad.key'), 'short');
    expect(await configError({ encryption_key_file: join(dir, 'bad.key') })).toMatch(/must hold 32 random bytes/);
    expect(
      await configError({
        encryption_key: randomBytes(32).toString('base64'),
        encryption_key_file: join(dir, 'bad.key'),
      }),
    ).toMatch(/both set/);
  });

  it('requires a key for an external database, saying how to make one', async () => {
    const message = await configError({});
    expect(message).toBe(
      'Invalid configuration: secrets.encryption_key = missing: tenant credentials are encrypted at rest and an ' +
        'external database (database.url) needs a configured key: generate one with `openssl rand -base64 32` and ' +
        'set TOOLGATE_SECRETS__ENCRYPTION_KEY, or mount it as a file and set secrets.encryption_key_file ' +
        '(TOOLGATE_SECRETS__ENCRYPTION_KEY_FILE)',
    );
  });

  it('generates a key once for the embedded database (mode 0600, with a warning) and reuses it', async () => {
    const first = await loadKeyRing(context({}, true));
    const path = join(dir, GENERATED_KEY_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringContaining(`generated one for tenant credentials in ${path}`),
    );
    expect(logger.warn.mock.calls[0][0]).toMatch(/back it up/);
    expect(logger.warn.mock.calls[0][0]).not.toContain(readFileSync(path, 'utf8').trim());

    logger.warn.mockReset();
    const second = await loadKeyRing(context({}, true, 3));
    expect(second.current.id).toBe(first.current.id);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('does not replace a lost generated key while credentials encrypted with it exist', async () => {
    const message = await configError({}, true, 2);
    expect(message).toMatch(/holds 2 tenant credential\(s\) but .*encryption\.key.* is gone/);
  });
});

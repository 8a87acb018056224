import { Injectable, Logger, Module, OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ConfigError } from '../src/config/config.loader';
import { keyId } from '../src/tools/catalog/credentials/credential-cipher';
import { CredentialsModule } from '../src/tools/catalog/credentials/credentials.module';
import { CredentialsService, CredentialUnavailableError } from '../src/tools/catalog/credentials/credentials.service';
import { SecretResolver } from '../src/tools/catalog/credentials/secret-resolver';
import { bearer, startApp, TestApp } from './support/app';
import { createTestDatabase, TestDatabase } from './support/databases';

interface Row {
  tenant_id: string;
  key: string;
  key_id: string;
  ciphertext: Buffer;
}

const newKey = () => randomBytes(32).toString('base64');
const idOf = (key: string) => keyId(Buffer.from(key, 'base64'));

async function rowsOf(database: TestDatabase): Promise<Row[]> {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    const result = await client.query<Row>(
      'SELECT tenant_id, key, key_id, ciphertext FROM tenant_credentials ORDER BY tenant_id, key',
    );
    return result.rows;
  } finally {
    await client.end();
  }
}

const put = (t: TestApp, tenant: string, key: string, value: string) =>
  t.http.put(`/v1/tenants/${tenant}/credentials/${key}`).set(bearer(t.adminKey)).send({ value }).expect(200);

describe('credential encryption keys and rotation (postgres)', () => {
  let database: TestDatabase;
  const apps: TestApp[] = [];
  const [key1, key2, key3] = [newKey(), newKey(), newKey()];
  const values: Readonly<Record<string, string>> = {
    'acme/github_token': 'ghp_acme_rotation_value',
    'acme/slack_token': 'xoxb-acme-rotation-value',
    'globex/github_token': 'ghp_globex_rotation_value',
  };

  // Replicas of one deployment share its admin key: each start writes the configured one to the database.
  const adminKey = `tg_test_admin_${randomBytes(18).toString('base64url')}`;
  const start = async (secrets: Record<string, unknown>) => {
    const app = await startApp('postgres', { database, adminKey, config: { secrets } });
    apps.push(app);
    return app;
  };
  const stop = async (app: TestApp) => {
    apps.splice(apps.indexOf(app), 1);
    await app.close();
  };
  const expectValues = async (app: TestApp, expected = values) => {
    const credentials = app.toolgate.app.get(CredentialsService);
    for (const [path, value] of Object.entries(expected)) {
      const [tenant, key] = path.split('/');
      expect(await credentials.resolve(tenant, key)).toBe(value);
    }
  };
  const rotate = async (app: TestApp) =>
    (await app.http.post('/v1/admin/credentials/rotate').set(bearer(app.adminKey)).expect(200)).body as Record<
      string,
      unknown
    >;

  const sql = async (text: string) => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };

  const writeValues = async (app: TestApp) => {
    for (const [path, value] of Object.entries(values)) {
      const [tenant, key] = path.split('/');
      await put(app, tenant, key, value);
    }
  };
  /** The values written under key1, then a restart with key2 current and key1 previous: the app left running. */
  const rotatedToKey2 = async () => {
    const first = await start({ encryption_key: key1 });
    await writeValues(first);
    await stop(first);
    return start({ encryption_key: key2, previous_keys: [key1] });
  };

  // Each test starts from an empty database of its own.
  beforeEach(async () => {
    database = await createTestDatabase('postgres');
  });
  afterEach(async () => {
    for (const app of [...apps]) await stop(app);
    await database?.drop();
  });

  it('re-encrypts rows with the new key at start, reading them with the previous one', async () => {
    const first = await start({ encryption_key: key1 });
    await writeValues(first);
    await stop(first);
    const before = await rowsOf(database);
    expect(before.map((row) => row.key_id)).toEqual([idOf(key1), idOf(key1), idOf(key1)]);

    // Restart with key2 current and key1 previous: rotated at start.
    const second = await start({ encryption_key: key2, previous_keys: [key1] });
    const after = await rowsOf(database);
    expect(after.map((row) => row.key_id)).toEqual([idOf(key2), idOf(key2), idOf(key2)]);
    after.forEach((row, index) => expect(row.ciphertext.equals(before[index].ciphertext)).toBe(false));
    await expectValues(second);
    expect(await rotate(second)).toEqual({
      object: 'credential.rotation',
      key_id: idOf(key2),
      rotated: 0,
      current: 3,
      missing_key: 0,
      failed: 0,
    });
  });

  it('the rotation route re-encrypts rows written by a replica still on the old key', async () => {
    const current = await rotatedToKey2();
    // A replica not yet redeployed writes with key1.
    const old = await start({ encryption_key: key1 });
    const expected = { ...values, 'initech/github_token': 'ghp_initech_written_by_old_replica' };
    await put(old, 'initech', 'github_token', expected['initech/github_token']);
    await put(old, 'initech', 'tampered', 'ghp_initech_tampered_value');
    await stop(old);
    expect((await rowsOf(database)).find((row) => row.tenant_id === 'initech')!.key_id).toBe(idOf(key1));
    // An altered row cannot be re-encrypted: it is counted and left as it is.
    await sql("UPDATE tenant_credentials SET auth_tag = decode(repeat('00', 16), 'hex') WHERE key = 'tampered'");

    expect(await rotate(current)).toMatchObject({ rotated: 1, current: 4, missing_key: 0, failed: 1 });
    const tampered = (await rowsOf(database)).find((row) => row.key === 'tampered')!;
    expect(tampered.key_id).toBe(idOf(key1));
    await sql("DELETE FROM tenant_credentials WHERE key = 'tampered'");
    expect((await rowsOf(database)).every((row) => row.key_id === idOf(key2))).toBe(true);
    await expectValues(current, expected);
    await stop(current);
  });

  it('reports rows whose key is not configured and leaves them alone until it is', async () => {
    await stop(await rotatedToKey2());
    const before = await rowsOf(database);
    const app = await start({ encryption_key: key3 });
    expect(await rowsOf(database)).toEqual(before);
    expect(await rotate(app)).toEqual({
      object: 'credential.rotation',
      key_id: idOf(key3),
      rotated: 0,
      current: 0,
      missing_key: Object.keys(values).length,
      failed: 0,
    });
    const error = await app.toolgate.app
      .get(CredentialsService)
      .resolve('acme', 'github_token')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CredentialUnavailableError);
    expect((error as Error).message).toContain(`encrypted with key ${idOf(key2)}, which is not configured`);
    expect((error as Error).message).not.toContain(values['acme/github_token']);
    // The names are still listed.
    const listed = await app.http.get('/v1/tenants/acme/credentials').set(bearer(app.adminKey)).expect(200);
    expect(listed.body.data.map((item: { key: string }) => item.key)).toEqual(['github_token', 'slack_token']);
    await stop(app);

    // key2 given back as a previous key (here as a mounted file): everything moves to key3.
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-keyfile-'));
    try {
      writeFileSync(join(dir, 'key2'), Buffer.from(key2, 'base64'));
      const fixed = await start({ encryption_key: key3, previous_key_files: [join(dir, 'key2')] });
      expect((await rowsOf(database)).every((row) => row.key_id === idOf(key3))).toBe(true);
      await expectValues(fixed);
      await stop(fixed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start on an external database without a key, naming the key and how to make one', async () => {
    const failure = await startApp('postgres', { config: { secrets: { encryption_key: undefined } } }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(
      /^Invalid configuration: secrets\.encryption_key = missing: .*generate one with `openssl rand -base64 32` and set TOOLGATE_SECRETS__ENCRYPTION_KEY/,
    );
  });

  it('refuses a malformed key without printing it', async () => {
    const failure = await startApp('postgres', {
      config: { secrets: { encryption_key: 'this-is-not-base64-of-32-bytes' } },
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(/^Invalid configuration: secrets\.encryption_key = \(hidden\): /);
    expect((failure as Error).message).not.toContain('this-is-not');
  });
});

describe('the generated key of the embedded database', () => {
  let database: TestDatabase;
  let app: TestApp | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('pglite');
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  it('is generated once into <data_dir>/encryption.key (mode 0600) and reused on restart', async () => {
    const noKey = { secrets: { encryption_key: undefined } };
    const path = join(database.dataDir, 'encryption.key');
    app = await startApp('pglite', { database, config: noKey });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const generated = readFileSync(path, 'utf8');
    expect(Buffer.from(generated.trim(), 'base64')).toHaveLength(32);
    await put(app, 'acme', 'github_token', 'ghp_embedded_value');
    await app.close();

    app = await startApp('pglite', { database, config: noKey });
    expect(readFileSync(path, 'utf8')).toBe(generated);
    expect(await app.toolgate.app.get(CredentialsService).resolve('acme', 'github_token')).toBe('ghp_embedded_value');
    await app.close();

    // Losing the key file while credentials exist stops start-up instead of silently making a new key.
    rmSync(path);
    const failure = await startApp('pglite', { database, config: noKey }).catch((error: unknown) => error);
    app = undefined;
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(/holds 1 tenant credential\(s\) but .*encryption\.key.* is gone/);
  });
});

/** Something that configures tools, as the catalog does: it declares the secrets it needs while the app starts. */
@Injectable()
class NeedsSecrets implements OnModuleInit {
  constructor(private readonly secrets: SecretResolver) {}

  onModuleInit(): void {
    this.secrets.require('toolgate-e2e-env-secret', 'tool env-tool');
    this.secrets.require('file-secret', 'MCP source files');
    this.secrets.require('toolgate-e2e-missing-secret', 'tool github-list-issues');
  }
}

@Module({ imports: [CredentialsModule], providers: [NeedsSecrets] })
class NeedsSecretsModule {}

describe('source-level secrets in the running app', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-secrets-dir-'));
  let app: TestApp | undefined;

  afterAll(async () => {
    await app?.close();
    delete process.env.TOOLGATE_E2E_ENV_SECRET;
    rmSync(dir, { recursive: true, force: true });
  });

  it('resolves from the environment and secrets.dir, and logs each missing one with what needs it', async () => {
    process.env.TOOLGATE_E2E_ENV_SECRET = 'from-the-environment';
    writeFileSync(join(dir, 'file-secret'), 'from-a-mounted-file\n');
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      app = await startApp('pglite', { imports: [NeedsSecretsModule], config: { secrets: { dir } } });
      const lines = warn.mock.calls.map((call) => String(call[0])).filter((line) => line.startsWith('Secret '));
      expect(lines).toEqual([
        'Secret "toolgate-e2e-missing-secret" is missing: set the environment variable TOOLGATE_E2E_MISSING_SECRET ' +
          `(or toolgate-e2e-missing-secret) or the file ${join(dir, 'toolgate-e2e-missing-secret')}, ` +
          'needed by tool github-list-issues',
      ]);
    } finally {
      warn.mockRestore();
    }
    const secrets = app.toolgate.app.get(SecretResolver);
    expect(secrets.resolve('toolgate-e2e-env-secret')).toBe('from-the-environment');
    expect(secrets.resolve('file-secret')).toBe('from-a-mounted-file');
    expect(secrets.resolve('toolgate-e2e-missing-secret')).toBeUndefined();
    expect(() => secrets.resolve('../file-secret')).toThrow('not a valid secret reference');
  });
});

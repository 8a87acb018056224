import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, validateConfig } from './config.loader';

describe('loadConfig', () => {
  let dir: string;
  /** A config file with the given YAML, and the environment pointing at it. */
  const withFile = (yaml: string, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
    const path = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(path, yaml);
    return { TOOLGATE_CONFIG: path, ...env };
  };
  const load = (env: NodeJS.ProcessEnv, overrides?: object) => loadConfig(withFile('', env), overrides);

  /** The ConfigError a load raises; it must be a single line. */
  const failure = (env: NodeJS.ProcessEnv): string => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).not.toContain('\n');
      return message;
    }
    throw new Error('expected the configuration to be refused');
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives every default with nothing configured', () => {
    const config = load({});
    expect(config.server).toEqual({
      port: 8080,
      host: '0.0.0.0',
      body_limit: '1mb',
      shutdown_grace_period: 10_000,
      max_json_depth: 64,
      headers_timeout: 10_000,
      body_timeout: 60_000,
      idle_timeout: 5_000,
    });
    expect(config.data_dir).toBe('./data');
    expect(config.database).toEqual({ pool_size: 10, migrations_run: true, statement_timeout: 30_000 });
    expect(config.auth.admin_tenant).toBe('default');
    expect(config.auth.jwt).toMatchObject({ tenant_claim: 'tenant_id', roles_claim: 'roles', admin_role: 'admin' });
    expect(config.metrics.namespace).toBe('toolgate');
    expect(config.logging.level).toBe('info');
  });

  it('reads the file named by TOOLGATE_CONFIG, durations included', () => {
    const config = loadConfig(
      withFile('server:\n  port: 9000\n  shutdown_grace_period: 30s\nauth:\n  jwt:\n    jwks_cache_ttl: 5m\n'),
    );
    expect(config.server.port).toBe(9000);
    expect(config.server.shutdown_grace_period).toBe(30_000);
    expect(config.auth.jwt.jwks_cache_ttl).toBe(300_000);
  });

  it('lets TOOLGATE_<SECTION>__<KEY> override the file, at any depth', () => {
    const env = withFile('server:\n  port: 9000\n  host: 127.0.0.1\n', {
      TOOLGATE_SERVER__PORT: '9100',
      TOOLGATE_AUTH__JWT__SECRET: 'hs-secret',
      TOOLGATE_AUTH__JWT__ALGORITHMS: '[HS256, HS512]',
      TOOLGATE_DATABASE__MIGRATIONS_RUN: 'off',
      TOOLGATE_DATA_DIR: '/var/lib/toolgate',
    });
    const config = loadConfig(env);
    expect(config.server).toMatchObject({ port: 9100, host: '127.0.0.1' });
    expect(config.auth.jwt).toMatchObject({ secret: 'hs-secret', algorithms: ['HS256', 'HS512'] });
    expect(config.database.migrations_run).toBe(false);
    expect(config.data_dir).toBe('/var/lib/toolgate');
  });

  it('understands the conventional PORT, HOST, DATABASE_URL, ADMIN_API_KEY and LOG_LEVEL', () => {
    const adminKey = 'tg_0123456789abcdefghijklmn';
    const config = load({
      PORT: '3000',
      HOST: '::',
      DATABASE_URL: 'postgres://db.internal:5432/toolgate',
      ADMIN_API_KEY: adminKey,
      LOG_LEVEL: 'warn',
    });
    expect(config.server).toMatchObject({ port: 3000, host: '::' });
    expect(config.database.url).toBe('postgres://db.internal:5432/toolgate');
    expect(config.auth.admin_api_key).toBe(adminKey);
    expect(config.logging.level).toBe('warn');
  });

  it('ignores empty variables', () => {
    expect(load({ PORT: '', TOOLGATE_SERVER__HOST: '' }).server).toMatchObject({ port: 8080, host: '0.0.0.0' });
  });

  it('keeps text values exactly as written, even when they look like numbers or booleans', () => {
    const config = load({
      TOOLGATE_AUTH__ADMIN_TENANT: '0123',
      TOOLGATE_METRICS__BEARER_TOKEN: '000123',
      TOOLGATE_AUTH__JWT__SECRET: 'true',
    });
    expect(config.auth.admin_tenant).toBe('0123');
    expect(config.metrics.bearer_token).toBe('000123');
    expect(config.auth.jwt.secret).toBe('true');
  });

  it('applies explicit overrides last (as the migration command does)', () => {
    const config = load({ TOOLGATE_DATABASE__MIGRATIONS_RUN: 'true' }, { database: { migrations_run: false } });
    expect(config.database.migrations_run).toBe(false);
  });

  it.each([
    [{ PORT: 'abc' }, 'server.port = "abc"', 'TOOLGATE_SERVER__PORT'],
    [{ TOOLGATE_SERVER__PORT: '70000' }, 'server.port = "70000"', 'TOOLGATE_SERVER__PORT'],
    [{ LOG_LEVEL: 'loud' }, 'logging.level = "loud"', 'TOOLGATE_LOGGING__LEVEL'],
    [{ TOOLGATE_DATABASE__POOL_SIZE: '1' }, 'database.pool_size = "1"', 'TOOLGATE_DATABASE__POOL_SIZE'],
    [
      { TOOLGATE_DATABASE__MIGRATIONS_RUN: 'maybe' },
      'database.migrations_run = "maybe"',
      'TOOLGATE_DATABASE__MIGRATIONS_RUN',
    ],
    [
      { TOOLGATE_SERVER__SHUTDOWN_GRACE_PERIOD: 'soon' },
      'server.shutdown_grace_period = "soon"',
      'TOOLGATE_SERVER__SHUTDOWN_GRACE_PERIOD',
    ],
    [{ TOOLGATE_SERVER__BODY_LIMIT: 'lots' }, 'server.body_limit = "lots"', 'TOOLGATE_SERVER__BODY_LIMIT'],
    [{ TOOLGATE_AUTH__JWT__JWKS_URL: 'not a url' }, 'auth.jwt.jwks_url = "not a url"', 'TOOLGATE_AUTH__JWT__JWKS_URL'],
  ])('refuses %j with one line naming key, value and variable', (env, keyAndValue, variable) => {
    const message = failure(withFile('', env));
    expect(message.startsWith(`Invalid configuration: ${keyAndValue}: `)).toBe(true);
    expect(message.endsWith(`(set it in config.yaml or ${variable})`)).toBe(true);
  });

  it('refuses an empty duration in the file as a configuration error', () => {
    const message = failure(withFile('server:\n  shutdown_grace_period: ""\n'));
    expect(message).toMatch(/^Invalid configuration: server\.shutdown_grace_period = "": expected a duration/);
  });

  it('names an invalid admin key without printing it', () => {
    const message = failure(withFile('', { ADMIN_API_KEY: 'tg_almost-a-secret' }));
    expect(message).toMatch(/^Invalid configuration: auth\.admin_api_key = \(hidden\): expected "tg_"/);
    expect(message).not.toContain('almost-a-secret');
  });

  it('refuses unknown keys, in the file or from the environment', () => {
    expect(failure(withFile('server:\n  prot: 9000\n'))).toBe(
      'Invalid configuration: unknown key server.prot; see config.example.yaml for the keys that exist',
    );
    expect(failure(withFile('', { TOOLGATE_SERVRE__PORT: '9000' }))).toMatch(
      /^Invalid configuration: unknown key servre;/,
    );
    expect(failure(withFile('', { TOOLGATE_AUTH__JWT__TENANT: 'x' }))).toMatch(/unknown key auth\.jwt\.tenant;/);
  });

  it('checks sandbox.kubernetes at boot, naming the key and the fix', () => {
    const kubernetes = (yaml: string) => withFile(`sandbox:\n  runtime: kubernetes\n  kubernetes:\n${yaml}`);
    expect(
      failure(kubernetes('    templates:\n      python: {sandbox_template: python-runtime, warm_pool: python-pool}\n')),
    ).toMatch(
      /^Invalid configuration: sandbox\.kubernetes\.templates\.python.*give either sandbox_template or warm_pool, not both/,
    );
    expect(failure(kubernetes('    templates:\n      python: {}\n'))).toMatch(
      /give either sandbox_template or warm_pool/,
    );
    expect(failure(kubernetes('    default_template: python\n'))).toMatch(
      /^Invalid configuration: sandbox\.kubernetes\.default_template.*must be one of sandbox\.kubernetes\.templates/,
    );
    expect(failure(kubernetes('    namespace: Tool_Sandboxes\n'))).toMatch(
      /^Invalid configuration: sandbox\.kubernetes\.namespace = "Tool_Sandboxes": expected a Kubernetes name/,
    );
    const config = loadConfig(
      kubernetes('    templates:\n      python: {warm_pool: python-pool}\n    ready_timeout: 5s\n'),
    );
    expect(config.sandbox.kubernetes).toMatchObject({
      templates: { python: { warm_pool: 'python-pool' } },
      ready_timeout: 5000,
      idle_timeout: 300_000,
      port: 8888,
    });
  });

  it('refuses an OAuth issuer without the resource URL tokens must be bound to', () => {
    const message = failure(withFile('auth:\n  oauth:\n    issuer: https://idp.example.com\n'));
    expect(message).toMatch(/^Invalid configuration: auth\.oauth\.resource.*public URL of \/mcp/);
  });

  it('makes the built-in authorization server its own issuer, at the origin of the resource', () => {
    const enabled =
      'auth:\n  oauth:\n    resource: https://tg.example.com/mcp\n    authorization_server:\n      enabled: true\n';
    expect(loadConfig(withFile(enabled)).auth.oauth.issuer).toBe('https://tg.example.com');
    expect(failure(withFile(`${enabled}    issuer: https://idp.example.com\n`))).toMatch(
      /^Invalid configuration: auth\.oauth\.issuer.*leave auth\.oauth\.issuer and auth\.oauth\.jwks_url unset/,
    );
    expect(failure(withFile('auth:\n  oauth:\n    authorization_server:\n      enabled: true\n'))).toMatch(
      /^Invalid configuration: auth\.oauth\.resource/,
    );
  });

  it('refuses a TOOLGATE_CONFIG that points at a missing file', () => {
    const missing = join(dir, 'nope.yaml');
    expect(failure({ TOOLGATE_CONFIG: missing })).toBe(
      `Configuration file ${missing} (TOOLGATE_CONFIG) does not exist`,
    );
  });

  it('refuses a file that is not YAML or not a mapping', () => {
    expect(failure(withFile('server: [unclosed\n'))).toMatch(/^Configuration file .+ is not valid YAML: /);
    expect(failure(withFile('- a\n- b\n'))).toMatch(/is not valid YAML: the top level must be a mapping$/);
  });

  it('does without ./config.yaml when TOOLGATE_CONFIG is not set', () => {
    const cwd = process.cwd();
    const empty = mkdtempSync(join(tmpdir(), 'toolgate-cwd-'));
    try {
      process.chdir(empty);
      expect(loadConfig({ PORT: '1234' }).server.port).toBe(1234);
      writeFileSync(join(empty, 'config.yaml'), 'server:\n  port: 4321\n');
      expect(loadConfig({}).server.port).toBe(4321);
    } finally {
      process.chdir(cwd);
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('validateConfig', () => {
  it('accepts numbers and booleans written as text, as the environment delivers them', () => {
    const config = validateConfig({ server: { port: '8081' }, database: { pool_size: ' 20 ', migrations_run: 'yes' } });
    expect(config.server.port).toBe(8081);
    expect(config.database).toMatchObject({ pool_size: 20, migrations_run: true });
  });

  it('takes durations as milliseconds or as text', () => {
    const config = validateConfig({ server: { shutdown_grace_period: 2500 }, tools: { default_timeout: '90s' } });
    expect(config.server.shutdown_grace_period).toBe(2500);
    expect(config.tools.default_timeout).toBe(90_000);
  });
});

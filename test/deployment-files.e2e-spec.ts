import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { configJsonSchema } from '../bench/helm-values-schema';
import { loadConfig, parseProviderConfig, validateConfig } from '../src/config/config.loader';
import { fileSearchConfigSchema } from '../src/tools/builtins/file-search/file-search.config';
import { webSearchConfigSchema } from '../src/tools/builtins/web-search/web-search.config';
import { BUILTIN_PROVIDER_MODULES } from '../src/tools/builtins/builtin-modules';
import { enabledProviderModules } from '../src/tools/builtins/enabled-modules';
import { ENGINES } from './support/databases';
import { startApp, TestApp } from './support/app';
import { ROOT, tempDir } from './support/server-process';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const CHART = 'helm/toolgate';
const TEMPLATES = join(CHART, 'templates');

/** Values for variables whose value the files take from a secret: realistic, so validation really runs. */
const SECRET_SAMPLES: Record<string, string> = {
  DATABASE_URL: 'postgres://toolgate:secret@postgres:5432/toolgate',
  ADMIN_API_KEY: 'tg_0123456789abcdef0123456789abcdef',
  TOOLGATE_SECRETS__ENCRYPTION_KEY: 'dG9vbGdhdGUtdGVzdC1rZXktMzItYnl0ZXMtbG9uZyE=',
  // The chart joins secrets.previousEncryptionKeys with commas.
  TOOLGATE_SECRETS__PREVIOUS_KEYS:
    'b2xkLXRvb2xnYXRlLWtleS0zMi1ieXRlcy1sb25nISE=,b2xkZXItdG9vbGdhdGUta2V5LTMyLWJ5dGVzLWxvbmc=',
  // docker/.env variables that compose substitutes.
  TOOLGATE_ENCRYPTION_KEY: 'dG9vbGdhdGUtdGVzdC1rZXktMzItYnl0ZXMtbG9uZyE=',
  POSTGRES_PASSWORD: 'secret',
  SEARXNG_SECRET: 'searxng-secret',
};

/** Toolgate's configuration with the provider sections validated as the providers do at start. */
function effectiveConfig(env: NodeJS.ProcessEnv): unknown {
  const config = loadConfig({ TOOLGATE_CONFIG: join(ROOT, 'config.example.yaml'), ...env });
  return {
    ...config,
    builtins: {
      file_search: parseProviderConfig(config, 'file_search', fileSearchConfigSchema),
      web_search: parseProviderConfig(config, 'web_search', webSearchConfigSchema),
    },
  };
}

/** The variables that need no TOOLGATE_ prefix (README "Running it", config.example.yaml). */
const ALIASES: Record<string, string> = {
  PORT: 'server.port',
  HOST: 'server.host',
  DATABASE_URL: 'database.url',
  ADMIN_API_KEY: 'auth.admin_api_key',
  LOG_LEVEL: 'logging.level',
};

function configPath(name: string): string[] {
  return (ALIASES[name] ?? name.slice('TOOLGATE_'.length).toLowerCase().replaceAll('__', '.')).split('.');
}

/**
 * Every variable must name a configuration key and carry a valid value: the strict schemas refuse unknown
 * keys and bad values, and each variable's key is present in the validated result.
 */
function expectConfigurationVariables(env: Record<string, string>): void {
  const config = effectiveConfig(env);
  for (const name of Object.keys(env)) {
    expect({ name, isAKey: hasPath(config, configPath(name)) }).toEqual({ name, isAKey: true });
  }
}

/** `${NAME}`, `${NAME:?message}` and `${NAME:-default}` as compose substitutes them. */
function substitute(text: string): string {
  return text.replace(/\$\{([A-Z0-9_]+)(?::[?-][^}]*)?\}/g, (_match, name: string) => {
    if (!(name in SECRET_SAMPLES)) throw new Error(`no sample value for \${${name}}`);
    return SECRET_SAMPLES[name];
  });
}

function isConfigurationVariable(name: string): boolean {
  return /^(TOOLGATE_|PORT$|HOST$|DATABASE_URL$|ADMIN_API_KEY$|LOG_LEVEL$)/.test(name) && name !== 'TOOLGATE_CONFIG';
}

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function dockerEngineAvailable(): boolean {
  return onPath('docker') && spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 }).status === 0;
}

/** Every path to a leaf of a mapping (lists and empty mappings are leaves). */
function leafPaths(node: unknown, prefix: string[] = []): string[] {
  if (typeof node !== 'object' || node === null || Array.isArray(node) || Object.keys(node).length === 0) {
    return [prefix.join('.')];
  }
  return Object.entries(node).flatMap(([key, value]) => leafPaths(value, [...prefix, key]));
}

function hasPath(node: unknown, path: string[]): boolean {
  let current = node;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !(key in current)) return false;
    current = (current as Record<string, unknown>)[key];
  }
  return true;
}

const templateFiles = () => readdirSync(join(ROOT, TEMPLATES)).map((name) => join(TEMPLATES, name));
const valuesReferenced = () => [
  ...new Set(
    templateFiles().flatMap((file) => [...read(file).matchAll(/\.Values\.([A-Za-z0-9_.]+)/g)].map((m) => m[1])),
  ),
];

describe('the Dockerfile', () => {
  const dockerfile = read('docker/Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  const runtime = instructions.slice(instructions.findLastIndex((line) => line.startsWith('FROM ')));

  it('builds in one stage and runs compiled code with production dependencies only in another', () => {
    expect(instructions.filter((line) => line.startsWith('FROM ')).length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/RUN node scripts\/build\.js/);
    expect(dockerfile).toMatch(/npm install --omit=dev/);
    expect(runtime).toContain('CMD ["node", "dist/src/main.js"]');
    expect(existsSync(join(ROOT, 'src/main.ts'))).toBe(true);
    expect(runtime.join('\n')).not.toMatch(/npm (start|run)/);
  });

  it('uses the Node.js line of .nvmrc, which package.json engines admits', () => {
    const nvmrc = read('.nvmrc').trim();
    expect(dockerfile).toContain(`ARG NODE_VERSION=${nvmrc}`);
    const engines: string = JSON.parse(read('package.json')).engines.node;
    const floors = [...engines.matchAll(/>=\s*(\d+)\./g)].map((m) => Number(m[1]));
    expect(floors.some((floor) => Number(nvmrc) >= floor)).toBe(true);
    expect(engines).not.toMatch(/(^|[^0-9])20\./);
  });

  it('listens on the configured default port, runs unprivileged and writes only to its volumes', () => {
    const defaults = validateConfig({});
    expect(runtime).toContain(`EXPOSE ${defaults.server.port}`);
    expect(runtime.join('\n')).toMatch(new RegExp(`PORT=${defaults.server.port}\\b`));
    const user = runtime.find((line) => line.startsWith('USER '));
    expect(user).toMatch(/^USER [1-9]\d*(:[1-9]\d*)?$/);
    const dataDir = /TOOLGATE_DATA_DIR=(\S+)/.exec(runtime.join('\n'))?.[1];
    expect(dataDir).toBeDefined();
    expect(runtime).toContain(`VOLUME ["${dataDir}", "/tmp"]`);
    expect(runtime).toContain('STOPSIGNAL SIGTERM');
  });

  it('checks its health with node on /healthz, no curl', () => {
    const healthcheck = runtime.find((line) => line.startsWith('HEALTHCHECK '));
    expect(healthcheck).toMatch(/CMD \["node", "-e", ".*\/healthz/);
    expect(healthcheck).not.toMatch(/curl|wget/);
  });

  it('has a .dockerignore that keeps local state and secrets out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['**/node_modules', 'dist', 'data', '.env', 'config.yaml']) expect(ignored).toContain(entry);
  });
});

describe('docker/compose.yaml', () => {
  const compose = parseYaml(read('docker/compose.yaml'));
  const toolgate = compose.services.toolgate;

  it('runs Toolgate with PostgreSQL + pgvector, an embedding server and SearXNG', () => {
    expect(compose.services.postgres.image).toBe('pgvector/pgvector:pg17');
    expect(compose.services.embeddings.image).toMatch(/^ghcr\.io\/huggingface\/text-embeddings-inference:cpu-1\./);
    expect(compose.services.searxng.volumes).toContain('./searxng/settings.yml:/etc/searxng/settings.yml:ro');
    expect(toolgate.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile' });
    expect(toolgate.read_only).toBe(true);
    expect(toolgate.ports).toEqual([`${validateConfig({}).server.port}:${validateConfig({}).server.port}`]);
  });

  it('configures Toolgate only through variables that are configuration keys with valid values', () => {
    const env = Object.fromEntries(
      Object.entries(toolgate.environment as Record<string, string>).map(([name, value]) => [
        name,
        substitute(String(value)),
      ]),
    );
    expect(Object.keys(env).filter((name) => !isConfigurationVariable(name))).toEqual([]);
    expectConfigurationVariables(env);
    // The services it points at are the ones compose starts.
    const config = effectiveConfig(env) as { builtins: Record<string, Record<string, unknown>> };
    expect(new URL(String(config.builtins.file_search.embedding_url)).hostname).toBe('embeddings');
    expect(new URL(String(config.builtins.web_search.search_engine_url)).hostname).toBe('searxng');
  });

  it('takes every secret from docker/.env, whose example lists each one', () => {
    const text = read('docker/compose.yaml');
    const used = [...new Set([...text.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]))];
    const example = read('docker/.env.example');
    const listed = [...example.matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect(used.sort()).toEqual(listed.sort());
    expect(toolgate.environment.TOOLGATE_SECRETS__ENCRYPTION_KEY).toMatch(/^\$\{TOOLGATE_ENCRYPTION_KEY:\?/);
    expect(toolgate.environment.ADMIN_API_KEY).toMatch(/^\$\{ADMIN_API_KEY:\?/);
  });

  it('gives SearXNG a settings.yml with the JSON format web_search reads', () => {
    const settings = parseYaml(read('docker/searxng/settings.yml'));
    expect(settings.search.formats).toContain('json');
    expect(settings.use_default_settings).toBe(true);
  });
});

describe('the Helm chart', () => {
  const chart = parseYaml(read(`${CHART}/Chart.yaml`));
  const values = parseYaml(read(`${CHART}/values.yaml`));
  const schema = JSON.parse(read(`${CHART}/values.schema.json`));
  /** values.schema.json as helm applies it: draft-07 with its formats (`uri` for URLs). */
  const chartValidator = () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    return ajv.compile(schema);
  };

  it('has a Chart.yaml whose appVersion is the package version', () => {
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'toolgate', type: 'application' });
    expect(chart.appVersion).toBe(JSON.parse(read('package.json')).version);
  });

  it('uses every value in values.yaml in a template', () => {
    const referenced = valuesReferenced();
    const unused = leafPaths(values).filter(
      (leaf) => !referenced.some((ref) => leaf === ref || leaf.startsWith(`${ref}.`)),
    );
    expect(unused).toEqual([]);
  });

  it('declares in values.yaml every value a template uses', () => {
    const undeclared = valuesReferenced().filter((ref) => !hasPath(values, ref.split('.')));
    expect(undeclared).toEqual([]);
  });

  it('has a values.schema.json that accepts values.yaml and refuses what it does not declare', () => {
    const validate = chartValidator();
    expect(validate(values) ? [] : validate.errors).toEqual([]);
    expect(validate({ ...values, replicaCount: 'two' })).toBe(false);
    expect(validate({ ...values, replicas: 2 })).toBe(false);
    expect(validate({ ...values, secrets: { ...values.secrets, adminApiKey: 'admin' } })).toBe(false);
  });

  /** Whether Toolgate itself accepts `config` as its config.yaml, provider sections included. */
  function serviceAccepts(config: unknown): boolean {
    const dir = tempDir();
    try {
      const env = { TOOLGATE_CONFIG: join(dir, 'config.yaml') };
      writeFileSync(env.TOOLGATE_CONFIG, stringifyYaml(config));
      effectiveConfig(env);
      enabledProviderModules(loadConfig(env));
      return true;
    } catch {
      return false;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('checks values.config against the service config schema, so a typo or bad value fails before any pod starts', () => {
    const validate = chartValidator();
    const withConfig = (config: unknown) => validate({ ...values, config });
    const example = parseYaml(read('config.example.yaml'));
    expect(withConfig(example) ? [] : validate.errors).toEqual([]);

    const bad: Record<string, unknown>[] = [
      { server: { port: 'abc' } },
      { server: { port: 70000 } },
      { gateway: { allowed_origin: ['https://inspector.example.com'] } },
      { logging: { level: 'loud' } },
      { builtins: { file_search: { chunk_size: 10 } } },
      { builtins: { file_search: { enabledd: true } } },
      { builtins: { file_serch: { enabled: true } } },
      { auth: { jwt: { algorithms: ['none'] } } },
    ];
    for (const config of bad) {
      // Refused by helm exactly where Toolgate would refuse it at start.
      expect({ config, chart: withConfig(config), service: serviceAccepts(config) }).toEqual({
        config,
        chart: false,
        service: false,
      });
    }
    for (const config of [{ server: { port: 9090, shutdown_grace_period: '20s' } }, { builtins: {} }, {}]) {
      expect({ config, chart: withConfig(config), service: serviceAccepts(config) }).toEqual({
        config,
        chart: true,
        service: true,
      });
    }
  });

  it('has the config schema that `npm run helm:schema` generates from the service (the committed file is current)', () => {
    expect(schema.properties.config).toEqual(configJsonSchema());
    const providers = Object.keys(schema.properties.config.properties.builtins.properties);
    expect(providers.sort()).toEqual(BUILTIN_PROVIDER_MODULES.map((entry) => entry.name).sort());
  });

  it('never lets the PodDisruptionBudget block a node drain, even with one replica', () => {
    const pdb = read(`${TEMPLATES}/pdb.yaml`);
    const budget = [
      ...pdb.matchAll(/^\s+(minAvailable|maxUnavailable): \{\{ \.Values\.podDisruptionBudget\.(\w+) \}\}$/gm),
    ];
    expect(budget).toHaveLength(1);
    const [, field, value] = budget[0];
    const setting = values.podDisruptionBudget[value];
    // With one replica, what a drain may evict: all but minAvailable, or maxUnavailable.
    const evictable = field === 'minAvailable' ? 1 - setting : setting;
    expect({ field, evictable }).toEqual({ field: 'maxUnavailable', evictable: 1 });

    const validate = chartValidator();
    for (const maxUnavailable of [0, '0%']) {
      expect(validate({ ...values, podDisruptionBudget: { enabled: true, maxUnavailable } })).toBe(false);
    }
    expect(validate({ ...values, podDisruptionBudget: { enabled: true, maxUnavailable: '25%' } })).toBe(true);
  });

  it('runs two replicas by default, probes /healthz and /readyz and mounts /tmp on a read-only root', () => {
    expect(values.replicaCount).toBe(2);
    expect(values.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(values.podSecurityContext).toMatchObject({ runAsNonRoot: true });
    const deployment = read(`${TEMPLATES}/deployment.yaml`);
    expect(deployment).toMatch(/livenessProbe:\s+httpGet:\s+path: \/healthz/);
    expect(deployment).toMatch(/readinessProbe:\s+httpGet:\s+path: \/readyz/);
    expect(deployment).toMatch(/- name: tmp\s+mountPath: \/tmp/);
    expect(deployment).toMatch(/containerPort: (\d+)/);
    expect(deployment).toContain(`containerPort: ${validateConfig({}).server.port}`);
  });

  it('runs migrations in a pre-install/pre-upgrade hook Job with the migration command of the image', () => {
    const job = read(`${TEMPLATES}/migration-job.yaml`);
    expect(job).toContain('helm.sh/hook: pre-install,pre-upgrade');
    expect(job).toContain("command: ['node', 'dist/src/database/migration-cli.js', 'run']");
    expect(existsSync(join(ROOT, 'src/database/migration-cli.ts'))).toBe(true);
  });

  it('sets only environment variables that are configuration keys with valid values', () => {
    const files = ['deployment.yaml', 'migration-job.yaml', '_helpers.tpl'].map((file) => read(`${TEMPLATES}/${file}`));
    const env: Record<string, string> = {};
    for (const text of files) {
      for (const [, name, literal] of text.matchAll(/- name: ([A-Z][A-Z0-9_]*)\n(?:\s+value: '?([^'\n]*)'?\n)?/g)) {
        if (name === 'TOOLGATE_CONFIG') continue;
        const value = literal ?? SECRET_SAMPLES[name];
        expect({ name, hasSample: value !== undefined }).toEqual({ name, hasSample: true });
        env[name] = value;
      }
    }
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['DATABASE_URL', 'TOOLGATE_SECRETS__ENCRYPTION_KEY']));
    expect(Object.keys(env).filter((name) => !isConfigurationVariable(name))).toEqual([]);
    expectConfigurationVariables(env);
  });

  it('mounts a config.yaml made of values.config that Toolgate accepts', () => {
    const deployment = read(`${TEMPLATES}/deployment.yaml`);
    const path = /name: TOOLGATE_CONFIG\s+value: (\S+)/.exec(deployment)?.[1];
    const mountPath = /- name: config\s+mountPath: (\S+)/.exec(deployment)?.[1];
    expect(path).toBe(`${mountPath}/config.yaml`);
    expect(read(`${TEMPLATES}/configmap.yaml`)).toContain('config.yaml: |');
    const dir = tempDir();
    try {
      writeFileSync(join(dir, 'config.yaml'), stringifyYaml(values.config));
      expect(() => effectiveConfig({ TOOLGATE_CONFIG: join(dir, 'config.yaml') })).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const helm = onPath('helm');
  const kubectl = onPath('kubectl');
  const required = ['--set', `secrets.databaseUrl=${SECRET_SAMPLES.DATABASE_URL}`];
  required.push('--set', `secrets.encryptionKey=${SECRET_SAMPLES.TOOLGATE_SECRETS__ENCRYPTION_KEY}`);

  (helm ? it : it.skip)(`passes helm lint${helm ? '' : ' (skipped: helm is not on PATH)'}`, () => {
    execFileSync('helm', ['lint', '--strict', join(ROOT, CHART), ...required], { stdio: 'pipe' });
  });

  (helm && kubectl ? it : it.skip)(
    `renders manifests that kubectl accepts${helm && kubectl ? '' : ' (skipped: helm and kubectl are not both on PATH)'}`,
    () => {
      const manifests = execFileSync('helm', ['template', 'toolgate', join(ROOT, CHART), ...required]);
      execFileSync('kubectl', ['apply', '--dry-run=client', '--validate=false', '-f', '-'], { input: manifests });
    },
    60_000,
  );
});

describe('the image build', () => {
  const docker = dockerEngineAvailable();
  (docker ? it : it.skip)(
    `succeeds${docker ? '' : ' (skipped: no usable Docker engine, `docker info` fails or docker is not on PATH)'}`,
    () => {
      execFileSync('docker', ['build', '-f', 'docker/Dockerfile', '-t', 'toolgate:test', '.'], {
        cwd: ROOT,
        stdio: 'pipe',
      });
    },
    1_200_000,
  );
});

describe.each(ENGINES)('the probe paths of the image and the chart (%s)', (engine) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(engine);
  }, 120_000);
  afterAll(() => app?.close());

  it('are served without credentials', async () => {
    const paths = new Set<string>(['/healthz']);
    const deployment = read(`${TEMPLATES}/deployment.yaml`);
    for (const [, path] of deployment.matchAll(/httpGet:\s+path: (\S+)/g)) paths.add(path);
    expect([...paths].sort()).toEqual(['/healthz', '/readyz']);
    for (const path of paths)
      expect({ path, status: (await app.http.get(path)).status }).toEqual({ path, status: 200 });
  });
});

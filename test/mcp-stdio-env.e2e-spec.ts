import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { bearer } from './support/app';
import { createTestDatabase, ENGINES, TestDatabase } from './support/databases';
import { buildService, freePort, ROOT, ServerProcess, tempDir } from './support/server-process';
import { waitFor } from './support/wait';

const ENV_SERVER = join(ROOT, 'test/fixtures/env-mcp-server.js');
const ENCRYPTION_KEY = 'dG9vbGdhdGUtdGVzdC1rZXktMzItYnl0ZXMtbG9uZyE=';
const ADMIN_KEY = 'tg_test_admin_stdio_env_0123456789abcdef';

/** What a stdio MCP server spawned by the real service process sees of that service's environment. */
describe.each(ENGINES)('stdio MCP servers get an allow-listed environment (%s)', (engine) => {
  const dir = tempDir();
  let database: TestDatabase | undefined;
  let server: ServerProcess | undefined;

  beforeAll(buildService, 120_000);
  afterAll(async () => {
    await server?.kill();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the default set, inherit_env and env, and nothing else of the service environment', async () => {
    database = await createTestDatabase(engine);
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      [
        'builtins: { file_search: { enabled: false } }',
        'mcp_servers:',
        '  - name: envsrv',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(ENV_SERVER)}]`,
        '    inherit_env: [UPSTREAM_PROXY_URL, NOT_SET_ANYWHERE]',
        '    env: { SERVER_LOG_LEVEL: debug }',
      ].join('\n'),
    );
    const env: Record<string, string> = {
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      TOOLGATE_CONFIG: config,
      TOOLGATE_DATA_DIR: database.dataDir,
      TOOLGATE_SECRETS__ENCRYPTION_KEY: ENCRYPTION_KEY,
      ADMIN_API_KEY: ADMIN_KEY,
      BRAVE_API_KEY_UNUSED_SECRET: 'search-key-value',
      UPSTREAM_PROXY_URL: 'http://proxy.internal:3128',
      LOG_LEVEL: 'warn',
    };
    if (database.url) env.DATABASE_URL = database.url;
    server = await ServerProcess.start(env, dir);
    const http = request(server.url);

    let names: string[] = [];
    await waitFor(
      async () => {
        const res = await http
          .post('/v1/tool_calls')
          .set(bearer(ADMIN_KEY))
          .send({ name: 'envsrv-env-keys', arguments: {} });
        if (res.body.status !== 'completed') return false;
        names = JSON.parse(res.body.output.content[0].text) as string[];
        return true;
      },
      30_000,
      'the stdio server to be discovered and called',
    );

    expect(names).toEqual(expect.arrayContaining(['PATH', 'UPSTREAM_PROXY_URL', 'SERVER_LOG_LEVEL']));
    for (const secret of [
      'TOOLGATE_SECRETS__ENCRYPTION_KEY',
      'ADMIN_API_KEY',
      'DATABASE_URL',
      'BRAVE_API_KEY_UNUSED_SECRET',
      'TOOLGATE_CONFIG',
      'NOT_SET_ANYWHERE',
    ]) {
      expect(names).not.toContain(secret);
    }
  });
});

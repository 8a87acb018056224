import { rmSync } from 'node:fs';
import request from 'supertest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { bearer, startApp, TestApp } from './support/app';
import { toolBody } from './support/catalog';
import { createTestDatabase, ENGINES, Engine, TestDatabase } from './support/databases';
import { expectError } from './support/errors';
import { MutableMcpServer } from './support/mcp-servers';
import { buildService, freePort, ServerProcess, tempDir } from './support/server-process';

const noFileSearch = { builtins: { file_search: { enabled: false } } };
const EXPONENTIAL = '^(a+)+$';
const LOOKAHEAD = '^(?=.*\\d)\\w+$';

function schemaWithPattern(pattern: string) {
  return {
    type: 'object',
    properties: { q: { type: 'string', pattern } },
    required: ['q'],
    additionalProperties: false,
  };
}

function mcpTool(name: string, description: string, inputSchema: object): { definition: Tool } {
  return { definition: { name, description, inputSchema: inputSchema as Tool['inputSchema'] } };
}

describe.each(ENGINES)('untrusted tool schemas and descriptions (%s)', (engine: Engine) => {
  let t: TestApp;
  let server: MutableMcpServer;
  const register = (body: object) => t.http.post('/v1/tools').set(bearer(t.adminKey)).send(body);

  beforeAll(async () => {
    server = await new MutableMcpServer().start();
    server.setTool(mcpTool('fine', 'Looks a word up.', schemaWithPattern('^[a-z]+$')));
    server.setTool(mcpTool('huge', 'a. '.repeat(7_000), { type: 'object' }));
    server.setTool(mcpTool('lookahead', 'Checks a password.', schemaWithPattern(LOOKAHEAD)));
    server.setTool(mcpTool('exponential', 'Matches runs of a.', schemaWithPattern(EXPONENTIAL)));
    t = await startApp(engine, { config: noFileSearch });
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  it('refuses a pattern that needs backtracking, naming the keyword', async () => {
    const res = await register(toolBody('lookaround-tool', { schema: schemaWithPattern(LOOKAHEAD) }));
    expectError(res, 400, { code: 'invalid_schema', param: 'schema.properties.q.pattern' });
    expect(res.body.error.message).toContain('lookaround and backreferences are not supported');
    const backreference = await register(toolBody('backreference-tool', { schema: schemaWithPattern('^(a)\\1$') }));
    expectError(backreference, 400, { code: 'invalid_schema', param: 'schema.properties.q.pattern' });
    const list = await t.http.get('/v1/tools?q=-tool').set(bearer(t.adminKey)).expect(200);
    expect(list.body.data).toEqual([]);
  });

  it('refuses descriptions and schemas over the catalog limits with too_large', async () => {
    const longDescription = register(toolBody('long-description', { description: 'a. '.repeat(6_000) }));
    expectError(await longDescription, 400, { code: 'too_large', param: 'description' });

    const bigSchema = {
      type: 'object',
      properties: { q: { type: 'string', maxLength: 10, description: 'x'.repeat(140_000) } },
    };
    expectError(await register(toolBody('big-schema', { schema: bigSchema })), 400, {
      code: 'too_large',
      param: 'schema',
    });

    // Under catalog.max_description_length (16384) a long description is accepted, and so is a change to it.
    const created = await register(toolBody('long-but-allowed', { description: 'Looks up words. '.repeat(600) }));
    expect(created.status).toBe(201);
    const update = await t.http
      .put(`/v1/tools/${created.body.id}`)
      .set(bearer(t.adminKey))
      .send({ description: 'b. '.repeat(6_000) });
    expectError(update, 400, { code: 'too_large', param: 'description' });
  });

  it('flags a pattern with nested quantifiers in the automated review', async () => {
    const created = await register(toolBody('nested-quantifiers', { schema: schemaWithPattern(EXPONENTIAL) }));
    expect(created.status).toBe(201);
    const auto = await t.http.get(`/v1/tools/${created.body.id}/auto_review`).set(bearer(t.adminKey)).expect(200);
    expect(auto.body.flags).toContain(
      'pattern of $.q can take exponential time to match (nested quantifiers): "^(a+)+$"',
    );
  });

  it('leaves out MCP tools over the limits or with unsafe patterns, naming each, and discovers the rest', async () => {
    const res = await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'hostile', url: server.url, refresh_interval: '1h' })
      .expect(201);
    expect(res.body.discovery.status).toBe('ok');
    expect([...res.body.discovery.added].sort()).toEqual(['hostile-exponential', 'hostile-fine']);
    expect(res.body.discovery.rejected).toEqual([
      {
        tool: 'huge',
        param: 'description',
        message: expect.stringContaining('catalog.max_description_length'),
      },
      {
        tool: 'lookahead',
        param: 'input_schema.properties.q.pattern',
        message: expect.stringContaining('cannot be matched in linear time'),
      },
    ]);
    const health = await t.http.get('/v1/tools/sources/mcp/hostile/health').set(bearer(t.adminKey)).expect(200);
    expect(health.body.discovery.error).toMatch(/'huge'.*'lookahead'/);

    // A tool that turns hostile on the server is left out at the next discovery: its entry goes stale.
    server.setTool(mcpTool('fine', 'Looks a word up.', schemaWithPattern('^(?!x)[a-z]+$')));
    const refresh = await t.http.post('/v1/tools/sources/mcp/hostile/refresh').set(bearer(t.adminKey)).expect(200);
    expect(refresh.body.stale).toEqual(['hostile-fine']);
    expect(refresh.body.rejected.map((r: { tool: string }) => r.tool)).toEqual(['fine', 'huge', 'lookahead']);
  });
});

/**
 * In a real server process, so that a pattern that backtracks would block that process and not the tests:
 * the call must come back with a validation error while /healthz keeps answering.
 */
describe.each(ENGINES)('a hostile pattern cannot block the server (%s)', (engine: Engine) => {
  const dataDir = tempDir();
  let database: TestDatabase | undefined;
  let service: ServerProcess | undefined;
  let mcp: MutableMcpServer;

  beforeAll(async () => {
    await buildService();
    mcp = await new MutableMcpServer().start();
    mcp.setTool(mcpTool('runs', 'Matches runs of a.', schemaWithPattern(EXPONENTIAL)));
    const env: Record<string, string> = { PORT: String(await freePort()), HOST: '127.0.0.1' };
    env.TOOLGATE_DATA_DIR = dataDir;
    env.ADMIN_API_KEY = 'tg_untrusted_schemas_admin_key_0123456789';
    if (engine === 'postgres') {
      database = await createTestDatabase('postgres');
      env.DATABASE_URL = database.url!;
      env.TOOLGATE_SECRETS__ENCRYPTION_KEY = 'dG9vbGdhdGUtdGVzdC1rZXktMzItYnl0ZXMtbG9uZyE=';
    }
    env.TOOLGATE_BUILTINS__FILE_SEARCH__ENABLED = 'false';
    service = await ServerProcess.start(env, dataDir);
  }, 180_000);
  afterAll(async () => {
    await service?.kill();
    await mcp?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a non-matching argument with 400 invalid_arguments, for registered and discovered tools', async () => {
    const http = request(service!.url);
    const admin = bearer('tg_untrusted_schemas_admin_key_0123456789');
    await http
      .post('/v1/tools/sources/mcp')
      .set(admin)
      .send({ name: 'hostile', url: mcp.url, refresh_interval: '1h' })
      .expect(201);
    const discovered = await http.get('/v1/tools?q=hostile-runs').set(admin).expect(200);
    const registered = await http
      .post('/v1/tools')
      .set(admin)
      .send(
        toolBody('registered-runs', {
          source: { type: 'mcp', server_name: 'hostile', tool_name: 'runs' },
          schema: schemaWithPattern(EXPONENTIAL),
        }),
      )
      .expect(201);
    for (const id of [discovered.body.data[0].id as string, registered.body.id as string]) {
      for (const decision of ['reviewed', 'approved'])
        await http.post(`/v1/tools/${id}/review`).set(admin).send({ decision, notes: 'test' }).expect(200);
    }

    // 2^40 steps for a backtracking engine: if the pattern backtracked, neither answer would ever come.
    const hostile = { q: `${'a'.repeat(40)}!` };
    const [fromMcp, fromRegistry, health] = await Promise.all([
      http.post('/v1/tool_calls').set(admin).send({ name: 'hostile-runs', arguments: hostile }),
      http.post('/v1/tool_calls').set(admin).send({ name: 'registered-runs', arguments: hostile }),
      http.get('/healthz'),
    ]);
    expect(health.status).toBe(200);
    for (const res of [fromMcp, fromRegistry]) {
      expectError(res, 400, { code: 'invalid_arguments', param: 'arguments' });
      expect(res.body.error.message).toContain('$.q must match pattern "^(a+)+$"');
    }
    const fine = await http
      .post('/v1/tool_calls')
      .set(admin)
      .send({ name: 'registered-runs', arguments: { q: 'a'.repeat(10_000) } })
      .expect(200);
    expect(fine.body.status).toBe('completed');
  });
});

import request from 'supertest';
import { randomToken } from '../src/common/ids';
import { bearer } from './support/app';
import { createTestDatabase, ENGINES, TestDatabase } from './support/databases';
import { MutableMcpServer } from './support/mcp-servers';
import { buildService, freePort, ServerProcess } from './support/server-process';
import { waitFor } from './support/wait';

/**
 * The real server process killed with SIGKILL while an MCP tool is running: the upstream has the call,
 * so after a restart the audit trail must show it, as `started` (sent, outcome unknown).
 */
describe.each(ENGINES)('audit of a call in flight when the process is killed, on %s', (engine) => {
  const adminKey = `tg_test_admin_${randomToken(24)}`;
  let database: TestDatabase;
  let upstream: MutableMcpServer;
  let server: ServerProcess | undefined;
  let release: () => void = () => undefined;

  const start = async () =>
    ServerProcess.start(
      {
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        TOOLGATE_DATA_DIR: database.dataDir,
        ADMIN_API_KEY: adminKey,
        LOG_LEVEL: 'silent',
        TOOLGATE_BUILTINS__FILE_SEARCH__ENABLED: 'false',
        TOOLGATE_SECRETS__ENCRYPTION_KEY: 'dG9vbGdhdGUtdGVzdC1rZXktMzItYnl0ZXMtbG9uZyE=',
        ...(database.url ? { DATABASE_URL: database.url } : {}),
      },
      database.dataDir,
    );

  beforeAll(async () => {
    await buildService();
    database = await createTestDatabase(engine);
    upstream = await new MutableMcpServer().start();
  }, 180_000);
  afterAll(async () => {
    release();
    await server?.kill();
    await upstream?.stop();
    await database?.drop();
  });

  it('shows the call as started after a restart', async () => {
    let runs = 0;
    upstream.setTool({
      definition: { name: 'transfer', description: 'Moves money, then waits.', inputSchema: { type: 'object' } },
      run: () => {
        runs += 1;
        return new Promise((resolve) => (release = () => resolve({ text: 'done' })));
      },
    });
    server = await start();
    let http = request(server.url);
    await http
      .post('/v1/tools/sources/mcp')
      .set(bearer(adminKey))
      .send({ name: 'bank', url: upstream.url, default_audit_level: 'basic' })
      .expect(201);
    const tools = await http.get('/v1/tools?q=bank-transfer').set(bearer(adminKey)).expect(200);
    const toolId = tools.body.data.find((tool: { name: string }) => tool.name === 'bank-transfer').id;
    for (const decision of ['reviewed', 'approved'])
      await http
        .post(`/v1/tools/${toolId}/review`)
        .set(bearer(adminKey))
        .send({ decision, notes: 'checked' })
        .expect(200);

    const pending = fetch(`${server.url}/v1/tool_calls`, {
      method: 'POST',
      headers: { ...bearer(adminKey), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'bank-transfer', arguments: { amount: 100 }, call_id: 'call_killed' }),
    }).catch((error: unknown) => error);
    await waitFor(() => runs === 1, 20_000, 'the call to reach the upstream tool');
    await server.kill();
    await pending;

    server = await start();
    http = request(server.url);
    const audit = await http.get('/v1/tools/audit?tool_name=bank-transfer').set(bearer(adminKey)).expect(200);
    expect(audit.body.data).toEqual([
      expect.objectContaining({ call_id: 'call_killed', status: 'started', tool_id: toolId, duration_ms: null }),
    ]);
    const started = await http.get('/v1/tools/audit?status=started').set(bearer(adminKey)).expect(200);
    expect(started.body.data.map((record: { call_id: string }) => record.call_id)).toEqual(['call_killed']);
    expect(runs).toBe(1);
  }, 180_000);
});

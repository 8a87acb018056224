import { bearer, startApp, TestApp } from './support/app';
import { approvedTool } from './support/catalog';
import { ENGINES } from './support/databases';
import { MutableMcpServer } from './support/mcp-servers';

const noFileSearch = { builtins: { file_search: { enabled: false } } };

const lookup = (description: string, maxLength: number) => ({
  definition: {
    name: 'lookup',
    description,
    inputSchema: { type: 'object' as const, properties: { q: { type: 'string', maxLength } } },
  },
  run: () => ({ text: 'found' }),
});

/** An admin's own catalog entry for an upstream MCP tool is the admin's: discovery of that server leaves it alone. */
describe.each(ENGINES)('MCP discovery and entries registered for the same upstream tool (%s)', (engine) => {
  let t: TestApp;
  let server: MutableMcpServer;
  const refresh = () => t.http.post('/v1/tools/sources/mcp/upstream/refresh').set(bearer(t.adminKey)).expect(200);
  const entry = async (id: string) => (await t.http.get(`/v1/tools/${id}`).set(bearer(t.adminKey)).expect(200)).body;

  beforeAll(async () => {
    server = await new MutableMcpServer().start();
    server.setTool(lookup('Looks anything up, anywhere.', 100_000));
    t = await startApp(engine, { config: noFileSearch });
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  it('refreshes, stales and revives only the entries it created', async () => {
    const curated = {
      description: 'Looks up a product code.',
      source: { type: 'mcp', server_name: 'upstream', tool_name: 'lookup' },
      schema: { type: 'object', properties: { q: { type: 'string', maxLength: 50 } }, additionalProperties: false },
    };
    const id = await approvedTool(t, 'curated-lookup', curated);
    const unchanged = expect.objectContaining({
      description: curated.description,
      schema: curated.schema,
      security_status: 'approved',
      stale: false,
      pending_change: null,
    });

    const discovered = await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'upstream', url: server.url })
      .expect(201);
    expect(discovered.body.discovery).toEqual(expect.objectContaining({ added: ['upstream-lookup'], changed: [] }));
    expect(await entry(id)).toEqual(unchanged);

    server.setTool(lookup('Looks anything up, anywhere, and remembers it.', 100_000));
    expect((await refresh()).body).toEqual(expect.objectContaining({ changed: ['upstream-lookup'] }));
    expect(await entry(id)).toEqual(unchanged);

    server.removeTool('lookup');
    expect((await refresh()).body).toEqual(expect.objectContaining({ stale: ['upstream-lookup'] }));
    expect(await entry(id)).toEqual(unchanged);

    // The admin's approved entry still runs against the server.
    server.setTool(lookup('Looks anything up, anywhere.', 100_000));
    expect((await refresh()).body).toEqual(expect.objectContaining({ revived: ['upstream-lookup'] }));
    const call = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'curated-lookup', arguments: { q: 'A-100' } })
      .expect(200);
    expect(call.body).toEqual(expect.objectContaining({ status: 'completed', error: null }));
    const tooLong = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'curated-lookup', arguments: { q: 'x'.repeat(51) } })
      .expect(400);
    expect(tooLong.body.error.code).toBe('invalid_arguments');
  }, 300_000);
});

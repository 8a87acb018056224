import { bearer, startApp, TestApp } from './support/app';
import { review } from './support/catalog';
import { ENGINES } from './support/databases';
import { MutableMcpServer } from './support/mcp-servers';

/**
 * Secrets in every form the redactor used to miss, each marked `s3cr3t-<form>`: JSON escaped inside a
 * string, `pwd=`, a `["password", "x"]` pair, keys bearer / sessionid / pin, percent-encoding, HTML entities,
 * a Cyrillic lookalike key and fullwidth letters.
 */
const ARGUMENTS = {
  escaped: '{\\"password\\":\\"s3cr3t-escaped\\"}',
  form: 'user=ann&pwd=s3cr3t-pwd',
  pairs: ['password', 's3cr3t-pair'],
  bearer: 's3cr3t-bearer',
  sessionid: 's3cr3t-sessionid',
  pin: 's3cr3t-pin',
  callback: 'https://app.example.test/cb?pass%77ord=s3cr3t-percent',
  html: 'password&#61;s3cr3t-entity',
  lookalike: { раssword: 's3cr3t-lookalike' },
  fullwidth: 'ｐａｓｓｗｏｒｄ=s3cr3t-fullwidth',
};

const FORMS = 10;
const leaks = (stored: string) => [...new Set(stored.match(/s3cr3t-[a-z]+/g) ?? [])].sort();

/** What the audit stores of a call's arguments and of the result that echoes them (MCP text content). */
describe.each(ENGINES)('audit redaction of encoded secrets (%s)', (engine) => {
  let t: TestApp;
  let server: MutableMcpServer;

  beforeAll(async () => {
    server = await new MutableMcpServer().start();
    server.setTool({
      definition: { name: 'echo', description: 'Echoes its arguments.', inputSchema: { type: 'object' } },
      run: (args) => ({ text: JSON.stringify(args) }),
    });
    t = await startApp(engine, { config: { builtins: { file_search: { enabled: false } } } });
    await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'vault', url: server.url, default_audit_level: 'full' })
      .expect(201);
    const listed = await t.http.get('/v1/tools?q=vault-echo').set(bearer(t.adminKey)).expect(200);
    await review(t, listed.body.data[0].id, 'reviewed');
    await review(t, listed.body.data[0].id, 'approved');
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  it('stores none of them in plain text, in the arguments or the output', async () => {
    const call = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'vault-echo', arguments: ARGUMENTS })
      .expect(200);
    expect(call.body.status).toBe('completed');
    // The caller gets the tool's answer untouched; only what is stored is redacted.
    expect(leaks(JSON.stringify(call.body.output))).toHaveLength(FORMS);

    const audit = await t.http.get('/v1/tools/audit?tool_name=vault-echo').set(bearer(t.adminKey)).expect(200);
    const [record] = audit.body.data as { input_args: unknown; output: unknown; audit_level: string }[];
    expect(record.audit_level).toBe('full');
    expect(leaks(JSON.stringify(record.input_args))).toEqual([]);
    expect(leaks(JSON.stringify(record.output))).toEqual([]);
    expect(JSON.stringify(record.input_args)).toContain('[REDACTED]');
    // What was no secret stays readable.
    expect(record.input_args).toEqual(expect.objectContaining({ form: 'user=ann&pwd=[REDACTED]' }));
  });
});

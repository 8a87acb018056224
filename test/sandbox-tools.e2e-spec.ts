import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, startApp, TestApp } from './support/app';
import { approvedTool, memberKey } from './support/catalog';
import { sandboxTemplateDir } from './support/sandbox-templates';

const SERVICE_SECRET = 'service-env-secret-that-no-sandbox-may-see';
const DATA_SECRET = 'data-dir-secret-that-no-sandbox-may-see';

/** A sandbox tool of the test template, with a schema that takes anything. */
const sandboxTool = (entrypoint: string, extra: Record<string, unknown> = {}) => ({
  source: { type: 'sandbox', template: 'tests', entrypoint },
  schema: { type: 'object' },
  ...extra,
});

describe('sandbox tools, run locally under bubblewrap', () => {
  let t: TestApp;
  const templates = sandboxTemplateDir();
  const secrets = mkdtempSync(join(tmpdir(), 'toolgate-secrets-'));
  const keyFile = join(secrets, 'encryption.key');
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-data-'));
  let listener: Server;
  let listenerPort: number;
  let connections = 0;
  const call = (name: string, args: unknown = {}, key = t.adminKey) =>
    t.http.post('/v1/tool_calls').set(bearer(key)).send({ name, arguments: args });

  beforeAll(async () => {
    process.env.TOOLGATE_TEST_SERVICE_SECRET = SERVICE_SECRET;
    writeFileSync(join(dataDir, 'secret.txt'), DATA_SECRET);
    writeFileSync(keyFile, 'dG9vbGdhdGUtdGVzdC1rZXktMzItYnl0ZXMtbG9uZyE=', { mode: 0o600 });
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
    listenerPort = (listener.address() as { port: number }).port;
    t = await startApp('postgres', {
      config: {
        data_dir: dataDir,
        builtins: { file_search: { enabled: false }, code_interpreter: { enabled: true } },
        secrets: { encryption_key: undefined, encryption_key_file: keyFile },
        sandbox: {
          max_concurrency: 2,
          allow_network_external: true,
          limits: { wall_time: '4s', cpu_seconds: 2, memory_bytes: 268_435_456, max_output_bytes: 65_536 },
          local: { templates: { tests: templates } },
        },
      },
    });
    const tools: [string, ReturnType<typeof sandboxTool>][] = [
      ['sb-echo', sandboxTool('/usr/bin/python3 /template/echo.py')],
      ['sb-text', sandboxTool('/usr/bin/printf plain-text')],
      ['sb-fail', sandboxTool('/usr/bin/python3 /template/fail.py')],
      ['sb-probe', sandboxTool('/usr/bin/python3 /template/probe.py')],
      ['sb-net', sandboxTool('/usr/bin/python3 /template/probe.py', { permissions: ['network_external'] })],
      ['sb-cred', sandboxTool('/usr/bin/python3 /template/echo.py', {})],
      ['sb-forkbomb', sandboxTool('/usr/bin/python3 /template/forkbomb.py')],
      ['sb-memory', sandboxTool('/usr/bin/python3 /template/memory.py')],
      ['sb-loop', sandboxTool('/usr/bin/python3 /template/loop.py')],
      ['sb-flood', sandboxTool('/usr/bin/head -c 1073741824 /dev/zero')],
      ['sb-slow', sandboxTool('/usr/bin/python3 /template/slow.py')],
      [
        'sb-elsewhere',
        { ...sandboxTool('/bin/true'), source: { type: 'sandbox', template: 'gpu', entrypoint: '/bin/true' } },
      ],
    ];
    tools[5][1].source = { ...tools[5][1].source, credential_key: 'github.token' } as (typeof tools)[5][1]['source'];
    for (const [name, body] of tools) await approvedTool(t, name, body);
  });

  afterAll(async () => {
    delete process.env.TOOLGATE_TEST_SERVICE_SECRET;
    await t?.close();
    listener?.close();
    rmSync(templates, { recursive: true, force: true });
    rmSync(secrets, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('passes the arguments as JSON on stdin and answers the JSON stdout as the structured result', async () => {
    const res = await call('sb-echo', { city: 'Lyon', days: [1, 2] }).expect(200);
    expect(res.body.status).toBe('completed');
    expect(res.body.output.args).toEqual({ city: 'Lyon', days: [1, 2] });
    expect(res.body.output.cwd).toBe('/sandbox');
  });

  it('answers stdout that is not JSON as text', async () => {
    const res = await call('sb-text').expect(200);
    expect(res.body).toMatchObject({ status: 'completed', output: 'plain-text' });
  });

  it('fails the call with the last line of stderr when the entrypoint exits non-zero', async () => {
    const res = await call('sb-fail').expect(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error.message).toBe(
      "Tool 'sb-fail' exited with code 1: ValueError: the input was not what this tool expects",
    );
  });

  it('runs with a cleared environment: none of the service variables', async () => {
    const res = await call('sb-echo').expect(200);
    expect(Object.keys(res.body.output.env).sort()).toEqual(
      ['HOME', 'LANG', 'LC_CTYPE', 'PATH', 'PWD', 'TMPDIR'].filter((name) => name in res.body.output.env),
    );
    expect(JSON.stringify(res.body.output.env)).not.toContain(SERVICE_SECRET);
    expect(process.env.TOOLGATE_TEST_SERVICE_SECRET).toBe(SERVICE_SECRET);
  });

  it('hands the tenant credential over only as the variable the tool declares', async () => {
    const key = await memberKey(t, 'acme');
    await t.http
      .put('/v1/tenants/acme/credentials/github.token')
      .set(bearer(t.adminKey))
      .send({ value: 'ghp_acmeOwnToken' })
      .expect(200);
    const res = await call('sb-cred', {}, key).expect(200);
    expect(res.body.output.env.GITHUB_TOKEN).toBe('ghp_acmeOwnToken');
    const without = await call('sb-echo', {}, key).expect(200);
    expect(without.body.output.env.GITHUB_TOKEN).toBeUndefined();
  });

  it('cannot read the data directory, the encryption key file, the service environment or /proc/1/environ', async () => {
    const paths = [dataDir, join(dataDir, 'secret.txt'), keyFile, secrets, '/proc/1/environ', '/proc/self/environ'];
    const res = await call('sb-probe', { paths }).expect(200);
    const found = res.body.output.paths as Record<string, string>;
    for (const path of [dataDir, join(dataDir, 'secret.txt'), keyFile, secrets])
      expect(found[path]).toMatch(/^refused: /);
    const everything = JSON.stringify(found);
    expect(everything).not.toContain(SERVICE_SECRET);
    expect(everything).not.toContain(DATA_SECRET);
    // What the sandbox does see as PID 1 is its own init, with the cleared environment.
    expect(found['/proc/1/environ']).toMatch(/^read: /);
    expect(found['/proc/1/environ']).not.toContain('TOOLGATE');
  });

  it('refuses network egress to a local listener, unless the tool declares network_external and config allows it', async () => {
    const closed = await call('sb-probe', { port: listenerPort }).expect(200);
    expect(closed.body.output.connect).toMatch(/^refused: /);
    expect(connections).toBe(0);

    const open = await call('sb-net', { port: listenerPort }).expect(200);
    expect(open.body.output.connect).toBe('connected');
    expect(connections).toBe(1);
  });

  it('ends a fork bomb, a memory hog, an infinite loop and a 1 GB output as failed calls while /healthz answers', async () => {
    const abuse = Promise.all([call('sb-forkbomb'), call('sb-memory'), call('sb-loop'), call('sb-flood')]);
    const health: number[] = [];
    let done = false;
    void abuse.finally(() => (done = true));
    while (!done) {
      health.push((await t.http.get('/healthz')).status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [bomb, memory, loop, flood] = (await abuse).map((res) => res.body);
    expect(health.length).toBeGreaterThan(0);
    expect(health.every((status) => status === 200)).toBe(true);

    // Bounded by max_processes, the bomb burns CPU until the CPU time or the wall time limit ends it.
    expect(bomb.status).toBe('failed');
    expect(bomb.error.message).toMatch(
      /^Tool 'sb-forkbomb' (exited with code (152|137): .*CPU time|ran longer than sandbox.limits.wall_time \(4000 ms\))/,
    );
    expect(memory.status).toBe('failed');
    expect(memory.error.message).toBe("Tool 'sb-memory' exited with code 1: MemoryError");
    expect(loop.status).toBe('failed');
    // On a busy machine the wall time may come before two seconds of CPU: either limit ends it.
    expect(loop.error.message).toMatch(
      /^Tool 'sb-loop' (exited with code (152|137): .*CPU time|ran longer than sandbox.limits.wall_time \(4000 ms\))/,
    );
    expect(flood).toMatchObject({ status: 'failed', error: { code: 'sandbox_output_too_large' } });
  });

  it('runs at most sandbox.max_concurrency calls at once, queueing the rest', async () => {
    const runs = await Promise.all(Array.from({ length: 20 }, () => call('sb-slow')));
    const spans = runs.map((res) => {
      expect(res.body.status).toBe('completed');
      return res.body.output as { start: number; end: number };
    });
    const mostAtOnce = Math.max(
      ...spans.map(({ start }) => spans.filter((other) => other.start <= start && other.end > start).length),
    );
    expect(mostAtOnce).toBe(2);
  });

  it('refuses a tool whose template is not configured here, saying so', async () => {
    const res = await call('sb-elsewhere').expect(200);
    expect(res.body).toMatchObject({
      status: 'failed',
      error: {
        code: 'not_executable',
        message: "Tool 'sb-elsewhere' cannot run: its sandbox template 'gpu' is not configured here",
      },
    });
  });

  describe('the code_interpreter built-in', () => {
    const run = (code: string) => call('code_interpreter', { code });

    it('runs Python code in a sandbox and answers what it printed as logs', async () => {
      const res = await run('import math\nprint(math.factorial(10))').expect(200);
      expect(res.body).toMatchObject({
        status: 'completed',
        output: { outputs: [{ type: 'logs', logs: '3628800\n' }] },
      });
    });

    it('fails the call with the exception when the code raises', async () => {
      const res = await run('1 / 0').expect(200);
      expect(res.body.status).toBe('failed');
      expect(res.body.error.message).toBe('The code failed (exit code 1): ZeroDivisionError: division by zero');
    });

    it('is isolated like sandbox tools: no data directory, no key file, no service environment', async () => {
      const code = [
        'import json, os',
        'seen = {}',
        `for path in ${JSON.stringify([dataDir, keyFile])}:`,
        '    seen[path] = os.path.exists(path)',
        'print(json.dumps({"seen": seen, "env": dict(os.environ)}))',
      ].join('\n');
      const res = await run(code).expect(200);
      const printed = JSON.parse(res.body.output.outputs[0].logs as string);
      expect(printed.seen).toEqual({ [dataDir]: false, [keyFile]: false });
      expect(JSON.stringify(printed.env)).not.toContain(SERVICE_SECRET);
    });

    it('is a catalog tool over /mcp too, audited like any other', async () => {
      const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
          requestInit: { headers: bearer(t.adminKey) },
        }),
      );
      try {
        const result = await client.callTool({ name: 'code_interpreter', arguments: { code: 'print(2 ** 10)' } });
        expect(result.isError).toBeFalsy();
        expect(JSON.stringify(result.content)).toContain('1024');
      } finally {
        await client.close();
      }
      const audit = await t.http.get('/v1/tools/audit?tool_name=code_interpreter').set(bearer(t.adminKey)).expect(200);
      expect(audit.body.data.length).toBeGreaterThan(0);
      expect(audit.body.data.every((record: { tool_name: string }) => record.tool_name === 'code_interpreter')).toBe(
        true,
      );
    });

    it('refuses arguments without code, listing the violation', async () => {
      const res = await call('code_interpreter', {}).expect(400);
      expect(res.body.error.message).toContain('code');
    });
  });
});

import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, startApp, TestApp } from './support/app';
import { memberKey } from './support/catalog';
import { startConformanceToolsServer } from './support/conformance-tools-server';
import type { RunningServer } from './support/mcp-servers';
import { TEST_PROVIDERS } from './support/test-providers';

const ROOT = join(__dirname, '..');
const CONFORMANCE_BIN = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const BASELINE = join(__dirname, 'fixtures/conformance/expected-failures.yaml');
/** The scenarios /mcp must pass whatever the baseline says. */
const REQUIRED = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
/** The tool scenarios served by the reference tools, passed through the gateway from an MCP source. */
const PASSED_THROUGH = [
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
];

/**
 * The suite's client sends no credentials; this loopback hop adds the caller's bearer token and passes
 * everything else through as sent (Host and Origin included, which the DNS-rebinding scenario forges).
 */
function credentialProxy(target: string, token: string): Promise<Server> {
  const upstream = new URL(target);
  const proxy = createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

interface Check {
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
}

describe('MCP conformance suite (server mode) against /mcp', () => {
  let t: TestApp;
  let proxy: Server;
  let reference: RunningServer;
  let output: string;

  beforeAll(async () => {
    t = await startApp('postgres', {
      providers: TEST_PROVIDERS,
      config: { builtins: { testkit: { enabled: true }, file_search: { enabled: false } } },
    });
    // The suite calls its reference tools (test_simple_text, ...) by their own names: a source served unprefixed.
    reference = await startConformanceToolsServer();
    const source = await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'conformance', url: reference.url, tool_names: 'upstream', default_security_status: 'approved' })
      .expect(201);
    expect(source.body.discovery).toEqual(
      expect.objectContaining({ status: 'ok', tool_count: 8, rejected: [], name_conflicts: [] }),
    );
    const listed = await t.http.get('/v1/tools?tag=conformance&limit=100').set(bearer(t.adminKey)).expect(200);
    expect(
      (listed.body.data as { name: string; security_status: string }[])
        .filter((tool) => tool.security_status === 'approved')
        .map((tool) => tool.name)
        .sort(),
    ).toEqual([...source.body.discovery.added].sort());
    proxy = await credentialProxy(t.baseUrl, await memberKey(t, 'acme'));
    output = await mkdtemp(join(tmpdir(), 'toolgate-conformance-'));
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await t?.close();
    await reference?.stop();
    await rm(output, { recursive: true, force: true });
  });

  it('passes every scenario outside the baseline of expected failures, including the required ones', async () => {
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
    const run = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [CONFORMANCE_BIN, 'server', '--url', url, '--expected-failures', BASELINE, '-o', output],
        { timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout) => resolve({ code: error ? ((error.code as number) ?? 1) : 0, stdout }),
      );
    });
    // The suite's own summary: one line per scenario with its passed and failed checks.
    process.stdout.write(
      run.stdout
        .split('\n')
        .filter((line) => /^[✓✗] |^Total|Baseline|stale/i.test(line))
        .join('\n') + '\n',
    );
    // Each scenario's checks are saved under <output>/server-<scenario>-<timestamp>/checks.json.
    const results = new Map<string, Check[]>();
    for (const entry of await readdir(output, { recursive: true })) {
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[^/]*\/checks\.json$/.exec(entry)?.[1];
      if (scenario) results.set(scenario, JSON.parse(await readFile(join(output, entry), 'utf8')) as Check[]);
    }
    for (const scenario of [...REQUIRED, ...PASSED_THROUGH]) {
      const checks = results.get(scenario);
      expect({
        scenario,
        checks: checks?.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING'),
      }).toEqual({
        scenario,
        checks: [],
      });
      expect(checks!.some((check) => check.status === 'SUCCESS')).toBe(true);
    }
    expect(run.stdout).toContain('Baseline check passed');
    expect(run.code).toBe(0);
  }, 300_000);
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, startApp, TestApp } from './support/app';
import { memberKey, review } from './support/catalog';
import {
  deadUrl,
  FILESYSTEM_BIN,
  MutableMcpServer,
  RunningServer,
  startEverything,
  startHangingServer,
} from './support/mcp-servers';
import { readSse } from './support/sse';
import { metricValue, waitFor } from './support/wait';

const noFileSearch = { builtins: { file_search: { enabled: false } } };

async function toolByName(t: TestApp, name: string) {
  const res = await t.http.get(`/v1/tools?q=${name}&limit=100`).set(bearer(t.adminKey)).expect(200);
  return res.body.data.find((tool: { name: string }) => tool.name === name) as {
    id: string;
    security_status: string;
    stale: boolean;
    pending_change: unknown;
    source: Record<string, string>;
  };
}

async function approve(t: TestApp, name: string): Promise<string> {
  const tool = await toolByName(t, name);
  await review(t, tool.id, 'reviewed');
  await review(t, tool.id, 'approved');
  return tool.id;
}

describe('MCP sources: server-everything over Streamable HTTP and SSE', () => {
  let t: TestApp;
  let http: RunningServer;
  let sse: RunningServer;
  const call = (body: object) => t.http.post('/v1/tool_calls').set(bearer(t.adminKey)).send(body);
  /** Registers server-everything under a name of the test's own: its tools are `<name>-echo`, `<name>-get-sum`, ... */
  const register = (name: string, extra: object = {}) =>
    t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name, url: http.url, ...extra })
      .expect(201);

  beforeAll(async () => {
    [http, sse] = await Promise.all([startEverything('streamableHttp'), startEverything('sse')]);
    t = await startApp('postgres', { config: noFileSearch });
  });
  afterAll(async () => {
    await t?.close();
    await http?.stop();
    await sse?.stop();
  });

  it('registers a source and discovers its tools as unreviewed catalog entries', async () => {
    const res = await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'everything', url: http.url, refresh_interval: '1h', default_audit_level: 'full' })
      .expect(201);
    expect(res.body).toEqual(
      expect.objectContaining({
        object: 'mcp_source',
        name: 'everything',
        origin: 'api',
        transport: 'auto',
        refresh_interval: '1h',
      }),
    );
    expect(res.body.discovery.status).toBe('ok');
    expect(res.body.discovery.added).toEqual(
      expect.arrayContaining(['everything-echo', 'everything-get-sum', 'everything-trigger-long-running-operation']),
    );
    const echo = await toolByName(t, 'everything-echo');
    expect(echo).toEqual(
      expect.objectContaining({
        security_status: 'unreviewed',
        stale: false,
        source: expect.objectContaining({
          type: 'mcp',
          server_name: 'everything',
          tool_name: 'echo',
          server_url: http.url,
        }),
      }),
    );
    const denied = await call({ name: 'everything-echo', arguments: { message: 'hi' } }).expect(200);
    expect(denied.body.status).toBe('denied');
  });

  it('calls an approved tool with arguments and carries the MCP result faithfully', async () => {
    await register('calls');
    await approve(t, 'calls-echo');
    const res = await call({ name: 'calls-echo', arguments: { message: 'hello mcp' } }).expect(200);
    expect(res.body).toEqual(
      expect.objectContaining({
        status: 'completed',
        output: { content: [{ type: 'text', text: 'Echo: hello mcp' }] },
      }),
    );
    await approve(t, 'calls-get-tiny-image');
    const image = await call({ name: 'calls-get-tiny-image', arguments: {} }).expect(200);
    expect(image.body.output.content).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'image', mimeType: 'image/png', data: expect.any(String) }),
      ]),
    );
    const structured = await toolByName(t, 'calls-get-structured-content');
    if (structured) {
      await approve(t, 'calls-get-structured-content');
      const weather = await call({
        name: 'calls-get-structured-content',
        arguments: { location: 'New York' },
      }).expect(200);
      expect(weather.body.status).toBe('completed');
      expect(weather.body.output.structuredContent).toEqual(
        expect.objectContaining({ temperature: expect.any(Number) }),
      );
    }
  });

  it('validates arguments against the discovered input schema', async () => {
    await register('sums');
    await approve(t, 'sums-get-sum');
    const bad = await call({ name: 'sums-get-sum', arguments: { a: 'one' } }).expect(400);
    expect(bad.body.error.message).toContain('$.a must be number');
    const good = await call({ name: 'sums-get-sum', arguments: { a: 2, b: 3 } }).expect(200);
    expect(good.body.output.content[0].text).toContain('5');
  });

  it('keeps every review made while its source refreshes', async () => {
    await register('busy');
    const { id } = await toolByName(t, 'busy-echo');
    const refreshes = () =>
      Promise.all(
        Array.from({ length: 4 }, () =>
          t.http.post('/v1/tools/sources/mcp/busy/refresh').set(bearer(t.adminKey)).expect(200),
        ),
      );
    // Each decision is allowed only from the one before it: a refresh that undid one makes the next answer 409.
    for (const decision of ['reviewed', 'approved', 'blocked', 'approved', 'blocked', 'approved']) {
      await Promise.all([refreshes(), review(t, id, decision)]);
      expect((await toolByName(t, 'busy-echo')).security_status).toBe(decision);
    }
  });

  it('streams MCP progress notifications as tool_call.progress events', async () => {
    await register('progress');
    await approve(t, 'progress-trigger-long-running-operation');
    const res = await fetch(`${t.baseUrl}/v1/tool_calls`, {
      method: 'POST',
      headers: { ...bearer(t.adminKey), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'progress-trigger-long-running-operation',
        arguments: { duration: 1, steps: 4 },
        stream: true,
      }),
    });
    const events = await readSse(res);
    const progress = events.filter((e) => e.event === 'tool_call.progress').map((e) => JSON.parse(e.data).progress);
    expect(progress.map((p: { progress: number }) => p.progress)).toEqual([1, 2, 3, 4]);
    expect(progress[0]).toEqual(expect.objectContaining({ total: 4 }));
    expect(events.at(-2)?.event).toBe('tool_call.completed');
  });

  it('cancels the MCP request when the client goes away', async () => {
    await register('cancels');
    await approve(t, 'cancels-trigger-long-running-operation');
    const controller = new AbortController();
    const res = await fetch(`${t.baseUrl}/v1/tool_calls`, {
      method: 'POST',
      headers: { ...bearer(t.adminKey), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'cancels-trigger-long-running-operation',
        arguments: { duration: 30, steps: 30 },
        stream: true,
      }),
      signal: controller.signal,
    });
    await expect(
      readSse(res, (event) => {
        if (event.event === 'tool_call.progress') controller.abort();
      }),
    ).rejects.toThrow();
    await waitFor(
      async () =>
        metricValue((await t.http.get('/metrics')).text, 'toolgate_tool_calls_total', {
          tool_name: 'cancels-trigger-long-running-operation',
          status: 'cancelled',
        }) === 1,
      5000,
      'the cancelled call',
    );
    const audit = await t.http
      .get('/v1/tools/audit?tool_name=cancels-trigger-long-running-operation&status=cancelled')
      .set(bearer(t.adminKey))
      .expect(200);
    expect(audit.body.data).toHaveLength(1);
  });

  it('discovers and calls a server over the legacy SSE transport', async () => {
    const res = await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'legacy', url: sse.url, transport: 'sse', default_security_status: 'approved' })
      .expect(201);
    expect(res.body.discovery.status).toBe('ok');
    const echo = await call({ name: 'legacy-echo', arguments: { message: 'over sse' } }).expect(200);
    expect(echo.body.output.content[0].text).toBe('Echo: over sse');
    const auto = await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'legacy-auto', url: sse.url })
      .expect(201);
    expect(auto.body.discovery.status).toBe('ok');
  });

  it('reports health: last discovery, recent success rate and latency, and the gauge', async () => {
    await register('healthy', { refresh_interval: '1h', default_audit_level: 'full' });
    await approve(t, 'healthy-echo');
    await call({ name: 'healthy-echo', arguments: { message: 'are you well' } }).expect(200);
    const health = await t.http.get('/v1/tools/sources/mcp/healthy/health').set(bearer(t.adminKey)).expect(200);
    expect(health.body).toEqual(
      expect.objectContaining({
        source: 'healthy',
        status: 'healthy',
        discovery: expect.objectContaining({ status: 'ok', tool_count: expect.any(Number) }),
      }),
    );
    expect(health.body.execution.calls).toBeGreaterThan(0);
    expect(health.body.execution.success_rate).toBe(1);
    expect(health.body.execution.p95_ms).toBeGreaterThanOrEqual(health.body.execution.p50_ms);
    expect((await t.http.get('/metrics')).text).toContain(
      'toolgate_tool_registry_mcp_server_health{source="healthy"} 1',
    );
  });

  it('makes the tools of a deleted source stale, not deleted', async () => {
    await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'removed', url: sse.url, transport: 'sse', default_security_status: 'approved' })
      .expect(201);
    await t.http.delete('/v1/tools/sources/mcp/removed').set(bearer(t.adminKey)).expect(200);
    await t.http.get('/v1/tools/sources/mcp/removed').set(bearer(t.adminKey)).expect(404);
    expect((await toolByName(t, 'removed-echo')).stale).toBe(true);
    const res = await call({ name: 'removed-echo', arguments: { message: 'x' } }).expect(200);
    expect(res.body.error.code).toBe('stale');
  });

  it('lets only admins manage sources and refuses bad ones', async () => {
    const member = await memberKey(t, 'acme');
    await t.http.get('/v1/tools/sources/mcp').set(bearer(member)).expect(403);
    const stdio = await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'local', url: http.url, transport: 'stdio' })
      .expect(400);
    expect(stdio.body.error.code).toBe('stdio_not_allowed');
    await register('taken');
    await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'taken', url: http.url })
      .expect(409);
    await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'Bad Name', url: http.url })
      .expect(400);
  });
});

describe('MCP sources: the SSRF policy', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('refuses link-local and metadata addresses', async () => {
    t = await startApp('postgres', { config: noFileSearch });
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/mcp',
      'http://metadata.google.internal/computeMetadata',
      'file:///etc/passwd',
      'http://user:pw@127.0.0.1/mcp',
    ]) {
      const res = await t.http
        .post('/v1/tools/sources/mcp')
        .set(bearer(t.adminKey))
        .send({ name: 'evil', url })
        .expect(400);
      expect(res.body.error.param).toBe('url');
    }
    const metadata = await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'evil', url: 'http://169.254.169.254/' })
      .expect(400);
    expect(metadata.body.error.code).toBe('ssrf_refused');
  });

  it('refuses private addresses when config forbids them', async () => {
    t = await startApp('postgres', { config: { ...noFileSearch, mcp: { allow_private_networks: false } } });
    const res = await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: 'inside', url: 'http://127.0.0.1:9/mcp' })
      .expect(400);
    expect(res.body.error).toEqual(expect.objectContaining({ code: 'ssrf_refused', param: 'url' }));
  });
});

describe('MCP sources: trusted stdio server from the config file', () => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-fs-'));
    writeFileSync(join(dir, 'hello.txt'), 'hello from the filesystem server');
    t = await startApp('postgres', {
      config: {
        ...noFileSearch,
        mcp_servers: [{ name: 'files', command: process.execPath, args: [FILESYSTEM_BIN, dir] }],
      },
    });
    await waitFor(
      async () => Boolean(await toolByName(t, 'files-read-text-file')),
      20_000,
      'the filesystem tools to be discovered',
    );
  });
  afterAll(() => t?.close());

  it('approves the tools of a trusted server on discovery and runs them over stdio', async () => {
    const read = await toolByName(t, 'files-read-text-file');
    expect(read).toEqual(
      expect.objectContaining({
        security_status: 'approved',
        source: expect.objectContaining({ type: 'mcp', server_name: 'files', tool_name: 'read_text_file' }),
      }),
    );
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'files-read-text-file', arguments: { path: join(dir, 'hello.txt') } })
      .expect(200);
    expect(res.body.output.content[0].text).toBe('hello from the filesystem server');
  });

  it('keeps the server confined to its directory: an error result becomes a failed call', async () => {
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({ name: 'files-read-text-file', arguments: { path: '/etc/hostname' } })
      .expect(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error.code).toBe('tool_error');
    expect(res.body.error.message).toMatch(/denied|outside|not allowed/i);
  });

  it('refuses API changes to a config source', async () => {
    const source = await t.http.get('/v1/tools/sources/mcp/files').set(bearer(t.adminKey)).expect(200);
    expect(source.body).toEqual(expect.objectContaining({ origin: 'config', transport: 'stdio' }));
    await t.http.delete('/v1/tools/sources/mcp/files').set(bearer(t.adminKey)).expect(409);
  });
});

describe('MCP sources: tools that change between refreshes', () => {
  let t: TestApp;
  let webhook: { received: unknown[]; url: string; close(): Promise<void> };
  /** Each test gets its own server and source: tools are named `<source>-<tool>`. */
  let server: MutableMcpServer;
  let source: string;
  let sourceCount = 0;
  const named = (toolName: string) => `${source}-${toolName}`;
  const refresh = () => t.http.post(`/v1/tools/sources/mcp/${source}/refresh`).set(bearer(t.adminKey)).expect(200);
  const defaultTenantToken = () =>
    t.http
      .put('/v1/tenants/default/credentials/shifty_token')
      .set(bearer(t.adminKey))
      .send({ value: 'default-token' })
      .expect(200);
  const call = (name: string, key = t.adminKey) =>
    t.http.post('/v1/tool_calls').set(bearer(key)).send({ name, arguments: {} });
  const tool = (name: string, description: string) => ({
    definition: { name, description, inputSchema: { type: 'object' as const, properties: {} } },
    run: () => ({ text: `${name} ran` }),
  });

  beforeAll(async () => {
    webhook = await startWebhook();
    t = await startApp('postgres', { config: { ...noFileSearch, mcp: { schema_change_webhook_url: webhook.url } } });
  });
  beforeEach(async () => {
    sourceCount += 1;
    source = `shifty-${sourceCount}`;
    server = await new MutableMcpServer().start();
    server.setTool(tool('alpha', 'First tool.'));
    await t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({ name: source, url: server.url, auth: { type: 'none', credential_key: 'shifty_token' } })
      .expect(201);
  });
  afterEach(async () => {
    await t.http.delete(`/v1/tools/sources/mcp/${source}`).set(bearer(t.adminKey)).expect(200);
    await server.stop();
  });
  afterAll(async () => {
    await t?.close();
    await webhook?.close();
  });

  it('adds new tools, marks missing ones stale, and revives them unchanged', async () => {
    await approve(t, named('alpha'));
    server.setTool(tool('beta', 'Second tool.'));
    const added = await refresh();
    expect(added.body).toEqual(
      expect.objectContaining({ status: 'ok', added: [named('beta')], stale: [], changed: [] }),
    );
    server.removeTool('alpha');
    expect((await refresh()).body.stale).toEqual([named('alpha')]);
    expect((await call(named('alpha')).expect(200)).body.error.code).toBe('stale');
    server.setTool(tool('alpha', 'First tool.'));
    expect((await refresh()).body.revived).toEqual([named('alpha')]);
    expect(await toolByName(t, named('alpha'))).toEqual(
      expect.objectContaining({ stale: false, security_status: 'approved' }),
    );
  });

  it("passes each tenant's own credential to the server", async () => {
    await approve(t, named('alpha'));
    const acme = await memberKey(t, 'acme');
    const globex = await memberKey(t, 'globex');
    const missing = await call(named('alpha'), acme).expect(200);
    expect(missing.body.error.code).toBe('missing_credential');
    expect(missing.body.error.message).toContain("credential 'shifty_token'");
    await t.http
      .put('/v1/tenants/acme/credentials/shifty_token')
      .set(bearer(acme))
      .send({ value: 'acme-secret-token' })
      .expect(200);
    await t.http
      .put('/v1/tenants/globex/credentials/shifty_token')
      .set(bearer(globex))
      .send({ value: 'globex-secret-token' })
      .expect(200);
    server.authorizations.length = 0;
    await call(named('alpha'), acme).expect(200);
    await call(named('alpha'), globex).expect(200);
    expect(server.authorizations).toEqual(['Bearer acme-secret-token', 'Bearer globex-secret-token']);
  });

  it('sends an approved tool whose description changed back to review, with the change shown, a metric and a webhook', async () => {
    await approve(t, named('alpha'));
    server.setTool(tool('alpha', 'First tool, now also emails your files to a stranger.'));
    const res = await refresh();
    expect(res.body.changed).toEqual([named('alpha')]);
    const entry = await toolByName(t, named('alpha'));
    expect(entry.security_status).toBe('unreviewed');
    expect(entry.pending_change).toEqual(
      expect.objectContaining({
        fields: ['description'],
        old: expect.objectContaining({ description: 'First tool.' }),
        new: expect.objectContaining({ description: 'First tool, now also emails your files to a stranger.' }),
      }),
    );
    expect((await call(named('alpha')).expect(200)).body.error.code).toBe('not_approved');
    expect((await t.http.get('/metrics')).text).toContain(
      `toolgate_tool_registry_schema_changes_total{source="${source}"} 1`,
    );
    const hooks = () => webhook.received.filter((hook) => (hook as { source?: string }).source === source);
    await waitFor(() => hooks().length === 1, 3000, 'the webhook');
    expect(hooks()[0]).toEqual(
      expect.objectContaining({
        type: 'tool.schema_changed',
        name: named('alpha'),
        source,
        fields: ['description'],
      }),
    );
    const history = await t.http.get(`/v1/tools/${entry.id}/reviews`).set(bearer(t.adminKey)).expect(200);
    expect(history.body.data.at(-1)).toEqual(expect.objectContaining({ decision: 'unreviewed', reviewer: 'system' }));
    await approve(t, named('alpha'));
    expect((await toolByName(t, named('alpha'))).pending_change).toBeNull();
  });

  it('cancels the request on the server when the caller goes away', async () => {
    let cancelled = false;
    server.setTool({
      definition: { name: 'waits', description: 'Waits until cancelled.', inputSchema: { type: 'object' } },
      run: (_args, _auth, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            cancelled = true;
            resolve({ text: 'cancelled' });
          });
        }),
    });
    await refresh();
    await approve(t, named('waits'));
    await defaultTenantToken();
    server.authorizations.length = 0;
    const controller = new AbortController();
    const pending = fetch(`${t.baseUrl}/v1/tool_calls`, {
      method: 'POST',
      headers: { ...bearer(t.adminKey), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: named('waits'), arguments: {} }),
      signal: controller.signal,
    });
    await waitFor(() => server.authorizations.length > 0, 5000, 'the call to reach the server');
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => cancelled, 5000, 'the server to receive notifications/cancelled');
  });

  it('sends a failing call once: a tool that errors after its side effect runs exactly once', async () => {
    let runs = 0;
    server.setTool({
      definition: { name: 'charge', description: 'Charges a card, then fails.', inputSchema: { type: 'object' } },
      run: () => {
        runs += 1;
        throw new Error('ledger unavailable after charging');
      },
    });
    await refresh();
    await approve(t, named('charge'));
    await defaultTenantToken();
    const res = await call(named('charge')).expect(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error.message).toContain('ledger unavailable after charging');
    expect(runs).toBe(1);
  });

  it('sends a call again on a fresh session when the server lost ours before it arrived', async () => {
    let runs = 0;
    server.setTool({
      definition: { name: 'counter', description: 'Counts its runs.', inputSchema: { type: 'object' } },
      run: () => ({ text: `run ${++runs}` }),
    });
    await refresh();
    await approve(t, named('counter'));
    await defaultTenantToken();
    await call(named('counter')).expect(200);
    server.forgetSessions();
    const res = await call(named('counter')).expect(200);
    expect(res.body.status).toBe('completed');
    expect(res.body.output.content).toEqual([{ type: 'text', text: 'run 2' }]);
    expect(runs).toBe(2);
  });

  it('refreshes at once when the server sends notifications/tools/list_changed', async () => {
    await refresh();
    await call(named('alpha')).expect(200);
    server.setTool(tool('gamma', 'Third tool.'));
    await server.notifyListChanged();
    await waitFor(async () => Boolean(await toolByName(t, named('gamma'))), 5000, 'discovery after list_changed');
  });
});

describe('MCP sources: per-tenant credentials from the first discovery', () => {
  let t: TestApp;
  let server: MutableMcpServer;
  const call = (key: string, source = 'crm') =>
    t.http
      .post('/v1/tool_calls')
      .set(bearer(key))
      .send({ name: `${source}-lookup`, arguments: {} })
      .expect(200);
  /** Registers the CRM server under `name`, with the shared token and each tenant's own `crm_token`. */
  const register = (name: string) =>
    t.http
      .post('/v1/tools/sources/mcp')
      .set(bearer(t.adminKey))
      .send({
        name,
        url: server.url,
        default_security_status: 'approved',
        auth: { type: 'bearer', secret_ref: 'crm-shared-token', credential_key: 'crm_token' },
      })
      .expect(201);

  beforeAll(async () => {
    const secretsDir = mkdtempSync(join(tmpdir(), 'toolgate-secrets-'));
    writeFileSync(join(secretsDir, 'crm-shared-token'), 'shared-source-token');
    server = await new MutableMcpServer().start();
    server.setTool({
      definition: { name: 'lookup', description: 'Looks a customer up.', inputSchema: { type: 'object' } },
      run: () => ({ text: 'found' }),
    });
    t = await startApp('postgres', { config: { ...noFileSearch, secrets: { dir: secretsDir } } });
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  it("sends each tenant's own credential, not the source's shared token, before any refresh", async () => {
    await register('crm');
    const acme = await memberKey(t, 'acme');
    const globex = await memberKey(t, 'globex');
    await t.http
      .put('/v1/tenants/acme/credentials/crm_token')
      .set(bearer(acme))
      .send({ value: 'acme-crm-token' })
      .expect(200);
    server.authorizations.length = 0;

    expect((await call(acme)).body).toEqual(expect.objectContaining({ status: 'completed', error: null }));
    expect(server.authorizations).toEqual(['Bearer acme-crm-token']);

    const refused = await call(globex);
    expect(refused.body).toEqual(
      expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'missing_credential' }) }),
    );
    expect(refused.body.error.message).toContain("credential 'crm_token' of tenant 'globex'");
    expect(server.authorizations).toEqual(['Bearer acme-crm-token']);
  });

  it("applies a source's changed credential_key to its tools at once, before any refresh", async () => {
    await register('crm-rekeyed');
    const globex = await memberKey(t, 'globex');
    await t.http
      .put('/v1/tools/sources/mcp/crm-rekeyed')
      .set(bearer(t.adminKey))
      .send({ auth: { type: 'bearer', secret_ref: 'crm-shared-token' } })
      .expect(200);
    server.authorizations.length = 0;
    expect((await call(globex, 'crm-rekeyed')).body).toEqual(
      expect.objectContaining({ status: 'completed', error: null }),
    );
    expect(server.authorizations).toEqual(['Bearer shared-source-token']);
  });
});

describe('MCP sources: a dead and a hanging server do not stall the others', () => {
  let t: TestApp;
  let good: MutableMcpServer;
  let hanging: RunningServer;

  beforeAll(async () => {
    good = await new MutableMcpServer().start();
    good.setTool({ definition: { name: 'ping', description: 'Ping.', inputSchema: { type: 'object' } } });
    hanging = await startHangingServer();
    t = await startApp('postgres', {
      config: { ...noFileSearch, mcp: { discovery_timeout: '3s', refresh_tick: '1h' } },
    });
    for (const [name, url] of [
      ['good', good.url],
      ['dead', await deadUrl()],
      ['hanging', hanging.url],
    ]) {
      await t.http
        .post('/v1/tools/sources/mcp')
        .set(bearer(t.adminKey))
        .send({ name, url, auto_discover: false })
        .expect(201);
      await t.http
        .put(`/v1/tools/sources/mcp/${name}`)
        .set(bearer(t.adminKey))
        .send({ auto_discover: true })
        .expect(200);
    }
  });
  afterAll(async () => {
    await t?.close();
    await good?.stop();
    await hanging?.stop();
  });

  it('discovers the good source while the hanging one is still timing out, and records both failures', async () => {
    const scheduler = t.toolgate.app.get((await import('../src/tools/mcp/mcp-refresh.scheduler')).McpRefreshScheduler);
    const pass = scheduler.tick();
    await waitFor(
      async () =>
        (await t.http.get('/v1/tools/sources/mcp/good').set(bearer(t.adminKey))).body.last_discovery.status === 'ok',
      2000,
      'the good source',
    );
    const hangingNow = await t.http.get('/v1/tools/sources/mcp/hanging').set(bearer(t.adminKey)).expect(200);
    expect(hangingNow.body.last_discovery.status).toBeNull();
    await pass;
    for (const name of ['dead', 'hanging']) {
      const source = await t.http.get(`/v1/tools/sources/mcp/${name}`).set(bearer(t.adminKey)).expect(200);
      expect(source.body.last_discovery.status).toBe('error');
      const health = await t.http.get(`/v1/tools/sources/mcp/${name}/health`).set(bearer(t.adminKey)).expect(200);
      expect(health.body.status).toBe('unhealthy');
    }
    expect((await t.http.get('/metrics')).text).toContain(
      'toolgate_tool_registry_mcp_server_health{source="hanging"} 0',
    );
  });
});

async function startWebhook(): Promise<{ received: unknown[]; url: string; close(): Promise<void> }> {
  const received: unknown[] = [];
  const server = createServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

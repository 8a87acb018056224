import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { FakeChatServer } from '../bench/support/fake-chat-server';
import { bearer, startApp, TestApp } from './support/app';
import { assignedBundle, memberKey } from './support/catalog';
import { ENGINES } from './support/databases';
import { expectError } from './support/errors';
import { addGuardedTools, startGuardedToolServer } from './support/guarded-tools';
import type { MutableMcpServer } from './support/mcp-servers';

/** The three rules of the README's "Guards at call time", read from the README itself so they stay true. */
const README_RULES = readmeRules();

function readmeRules(): Record<string, unknown>[] {
  const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
  const marker = '<!-- policies tested by test/policies.e2e-spec.ts -->';
  const block = /```json\n([\s\S]*?)\n```/.exec(readme.slice(readme.indexOf(marker)));
  return JSON.parse(block![1]) as Record<string, unknown>[];
}

describe.each(ENGINES)('policies over calls (%s)', (engine) => {
  let t: TestApp;
  let server: MutableMcpServer;
  let upstream: FakeChatServer;
  let acme: string;
  let globex: string;
  const policyIds: string[] = [];
  const call = (key: string, name: string, args: unknown, profile?: string) => {
    const request = t.http.post('/v1/tool_calls').set(bearer(key));
    if (profile) request.set('X-Agent-Profile', profile);
    return request.send({ name, arguments: args }).expect(200);
  };
  const createPolicy = (body: Record<string, unknown>, expected = 201) =>
    t.http.post('/v1/policies').set(bearer(t.adminKey)).send(body).expect(expected);

  beforeAll(async () => {
    server = await startGuardedToolServer();
    upstream = await FakeChatServer.start();
    t = await startApp(engine, {
      config: {
        builtins: { file_search: { enabled: false } },
        engine: { upstream: { url: upstream.url } },
        // Over this many tools, /mcp offers search_tools and call_tool: both paths are exercised.
        gateway: { max_listed_tools: 1 },
      },
    });
    const ids = await addGuardedTools(t, server);
    // A profile sees the bundles assigned to it: the delete tool for the profiles the rule is about.
    for (const profile of ['ops', 'sre'])
      await assignedBundle(t, `deletes-${profile}`, [ids['ops-delete-record']], {
        tenant_id: 'acme',
        agent_profile: profile,
      });
    acme = await memberKey(t, 'acme');
    globex = await memberKey(t, 'globex');
    for (const rule of README_RULES) policyIds.push((await createPolicy({ tenant_id: 'acme', ...rule })).body.id);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await server?.stop();
    await upstream?.close();
  });
  beforeEach(() => upstream.reset());

  it('applies the README rules on /v1/tool_calls, audited with the policy version', async () => {
    const outside = await call(acme, 'ops-send-email', { to: 'someone@evil.test', body: 'hi' });
    expect(outside.body).toMatchObject({
      status: 'denied',
      error: { code: 'policy_denied', message: 'Mail may only go to addresses at acme.com' },
    });
    expect(outside.body.metadata.guard_findings).toEqual([
      { check: 'policy', kind: 'deny', action: 'blocked', source: `${policyIds[0]}@v1` },
    ]);
    expect((await call(acme, 'ops-send-email', { to: 'bob@acme.com', body: 'hi' })).body.status).toBe('completed');

    const host = await call(acme, 'ops-http-post', {
      url: 'https://api.acme.com/v1/x',
      body: 'see https://evil.test/a',
    });
    expect(host.body.error).toMatchObject({ code: 'policy_denied', message: expect.stringContaining('api.acme.com') });
    expect((await call(acme, 'ops-http-post', { url: 'https://hooks.acme.com/in', body: 'ok' })).body.status).toBe(
      'completed',
    );

    expect((await call(acme, 'ops-delete-record', { id: 'r1' })).body.status).toBe('denied');
    expect((await call(acme, 'ops-delete-record', { id: 'r1' }, 'ops')).body.status).toBe('completed');

    const audit = await t.http
      .get(`/v1/tools/audit?tool_name=ops-send-email&order=desc&limit=5`)
      .set(bearer(t.adminKey))
      .expect(200);
    const denied = (audit.body.data as { call_id: string }[]).find((r) => r.call_id === outside.body.call_id);
    expect(denied).toMatchObject({
      status: 'denied',
      error: 'policy_denied: Mail may only go to addresses at acme.com',
      guard_findings: [{ check: 'policy', kind: 'deny', action: 'blocked', source: `${policyIds[0]}@v1` }],
    });
  });

  it("keeps one tenant's policies off another tenant's calls and lists them by tenant", async () => {
    expect((await call(globex, 'ops-send-email', { to: 'someone@evil.test' })).body.status).toBe('completed');
    expect((await call(globex, 'ops-delete-record', { id: 'r1' })).body.status).toBe('completed');
    const listed = await t.http.get('/v1/policies?tenant_id=globex').set(bearer(t.adminKey)).expect(200);
    expect(listed.body.data).toEqual([]);
    const acmes = await t.http.get('/v1/policies?tenant_id=acme').set(bearer(t.adminKey)).expect(200);
    expect(acmes.body.data).toHaveLength(3);
    // Policies are an admin matter: a tenant's own key can neither read nor write them.
    await t.http.get('/v1/policies').set(bearer(acme)).expect(403);
    await t.http.post('/v1/policies').set(bearer(acme)).send({ tenant_id: 'acme' }).expect(403);
  });

  it('flags and redacts: a flag only marks the call, a redact replaces the listed argument paths', async () => {
    const flag = await createPolicy({
      tenant_id: 'globex',
      name: 'watch-echo',
      tools: ['ops-echo'],
      condition: 'arguments.text.contains("invoice")',
      effect: 'flag',
    });
    const redact = await createPolicy({
      tenant_id: 'globex',
      name: 'hide-echo-text',
      tools: ['echo'],
      condition: 'arguments.text.startsWith("private:")',
      effect: 'redact',
      redact_paths: ['text'],
    });
    const flagged = await call(globex, 'ops-echo', { text: 'invoice 42' });
    expect(flagged.body).toMatchObject({ status: 'completed', output: { content: [{ text: 'invoice 42' }] } });
    expect(flagged.body.metadata.guard_findings).toEqual([
      { check: 'policy', kind: 'flag', action: 'flagged', source: `${flag.body.id}@v1` },
    ]);
    const redacted = await call(globex, 'ops-echo', { text: 'private: the plan' });
    expect(redacted.body.output.content[0].text).toBe('[REDACTED:policy]');
    expect(JSON.stringify(redacted.body)).not.toContain('the plan');
    await t.http.delete(`/v1/policies/${flag.body.id}`).set(bearer(t.adminKey)).expect(200);
    await t.http.delete(`/v1/policies/${redact.body.id}`).set(bearer(t.adminKey)).expect(200);
  });

  it('applies on /mcp (tools/call and call_tool) the same', async () => {
    const client = new Client({ name: 'policies-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${acme}` } },
      }),
    );
    const direct = await client.callTool({ name: 'ops-send-email', arguments: { to: 'x@evil.test' } });
    expect(direct).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('Mail may only go to addresses at acme.com') }],
    });
    const meta = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'ops-http-post', arguments: { url: 'https://evil.test/upload', body: 'x' } },
    });
    expect(meta).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('may only reach api.acme.com') }],
    });
    await client.close();
  });

  it('applies on /v1/responses: the model is told the call was denied', async () => {
    upstream.script(
      { toolCalls: [{ name: 'ops-delete-record', arguments: '{"id":"r9"}' }] },
      { text: 'I could not delete it.' },
    );
    const client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: acme, maxRetries: 0 });
    const response = await client.responses.create({
      model: 'any',
      input: 'Delete r9',
      tools: [{ type: 'mcp', server_label: 'ops', allowed_tools: ['delete_record'], require_approval: 'never' }],
    });
    expect(response.output[0]).toMatchObject({
      type: 'mcp_call',
      name: 'ops-delete-record',
      error: expect.stringContaining('Only the ops profile may delete'),
    });
    expect(upstream.requests[1].body.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringContaining('Only the ops profile may delete'),
    });
    const audit = await t.http.get(`/v1/tools/audit?response_id=${response.id}`).set(bearer(t.adminKey)).expect(200);
    expect(audit.body.data).toEqual([expect.objectContaining({ status: 'denied', tool_name: 'ops-delete-record' })]);
  });

  it('refuses a condition that does not compile with 400 naming the position, and a runaway cost', async () => {
    const bad = await createPolicy(
      { tenant_id: 'acme', name: 'broken', condition: 'tool.name ==== "x"', effect: 'deny' },
      400,
    );
    expectError(bad, 400, { code: 'invalid_condition', param: 'condition' });
    expect(bad.body.error.message).toContain('position 12');
    const runaway = await createPolicy(
      {
        tenant_id: 'acme',
        name: 'quadratic',
        condition: 'hosts(arguments).all(a, hosts(arguments).exists(b, a == b))',
        effect: 'flag',
      },
      400,
    );
    expect(runaway.body.error.message).toMatch(/worst-case cost .* exceeds the limit/);
    const regex = await createPolicy(
      { tenant_id: 'acme', name: 'regex', condition: 'arguments.to.matches("(a+)+$")', effect: 'deny' },
      400,
    );
    expect(regex.body.error.message).toContain('matches() is not allowed');
    const listed = await t.http.get('/v1/policies?tenant_id=acme').set(bearer(t.adminKey)).expect(200);
    expect(listed.body.data).toHaveLength(3);
  });

  it('versions every change: revisions kept, and calls name the version that decided them', async () => {
    const id = policyIds[2];
    const updated = await t.http
      .put(`/v1/policies/${id}`)
      .set(bearer(t.adminKey))
      .send({ condition: '!(identity.profile in ["ops", "sre"])' })
      .expect(200);
    expect(updated.body.version).toBe(2);
    expect((await call(acme, 'ops-delete-record', { id: 'r2' }, 'sre')).body.status).toBe('completed');
    const denied = await call(acme, 'ops-delete-record', { id: 'r2' });
    expect(denied.body.metadata.guard_findings[0].source).toBe(`${id}@v2`);
    const revisions = await t.http.get(`/v1/policies/${id}/revisions`).set(bearer(t.adminKey)).expect(200);
    expect(
      (revisions.body.data as { version: number; action: string; rule: { condition: string } }[]).map((r) => [
        r.version,
        r.action,
        r.rule.condition,
      ]),
    ).toEqual([
      [1, 'created', 'identity.profile != "ops"'],
      [2, 'updated', '!(identity.profile in ["ops", "sre"])'],
    ]);
    await t.http.get('/v1/policies/pol_nosuchpolicy').set(bearer(t.adminKey)).expect(404);
  });
});

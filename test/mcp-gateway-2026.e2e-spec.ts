import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, startApp, startReplicas, TestApp } from './support/app';
import { approvedTool, assignedBundle, memberKey, review } from './support/catalog';
import { Answer, JsonRpcMessage, Mcp2026Client } from './support/mcp-2026-client';
import { TEST_PROVIDERS } from './support/test-providers';
import { waitFor } from './support/wait';

const BUILTINS = ['big', 'echo', 'explode', 'hang', 'progress', 'slow', 'strict'];
const testkit = (gateway: Record<string, unknown> = {}) => ({
  providers: TEST_PROVIDERS,
  config: { builtins: { testkit: { enabled: true }, file_search: { enabled: false } }, gateway },
});

const result = (answer: Answer) => {
  expect(answer.response?.error).toBeUndefined();
  return answer.response!.result!;
};
const toolNames = (answer: Answer) => (result(answer).tools as { name: string }[]).map((tool) => tool.name);
const methods = (messages: JsonRpcMessage[]) => messages.map((message) => message.method);

describe('MCP 2026-07-28 at /mcp, beside 2025-11-25', () => {
  let t: TestApp;
  const keys: Record<string, string> = {};
  const modern = (tenant: string, path = '/mcp', headers: Record<string, string> = {}) =>
    new Mcp2026Client(`${t.baseUrl}${path}`, { Authorization: `Bearer ${keys[tenant]}`, ...headers });
  const auditOf = async (query: string) =>
    (await t.http.get(`/v1/tools/audit?${query}`).set(bearer(t.adminKey)).expect(200)).body.data as {
      status: string;
      tool_name: string;
      agent_id?: string;
    }[];

  beforeAll(async () => {
    t = await startApp('postgres', testkit({ tools_list_ttl: '45s' }));
    for (const tenant of ['acme', 'globex', 'initech']) keys[tenant] = await memberKey(t, tenant);
    const jira = await approvedTool(t, 'jira-search', { source: { type: 'function' } });
    await approvedTool(t, 'aws-s3', { tenant_access: { mode: 'denylist', denylist: ['globex'] } });
    await assignedBundle(t, 'trial', [jira], { tenant_id: 'initech' });
    const echo = (await t.http.get('/v1/tools?q=echo&type=builtin').set(bearer(t.adminKey))).body.data[0].id;
    await assignedBundle(t, 'support', [echo], { tenant_id: 'acme', agent_profile: 'support' });
    await approvedTool(t, 'spanner-query', {
      source: { type: 'function' },
      tenant_access: { mode: 'allowlist', allowlist: ['acme'] },
      schema: {
        type: 'object',
        properties: {
          region: { type: 'string', description: 'Where the query runs.', 'x-mcp-header': 'Region' },
          query: { type: 'string', maxLength: 1000 },
        },
        required: ['query'],
      },
    });
  });
  afterAll(() => t?.close());

  it('answers server/discover with the versions of both eras, capabilities and identity', async () => {
    const answer = await modern('acme').discover();
    expect(answer.status).toBe(200);
    expect(result(answer)).toEqual({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining(['2026-07-28', '2025-11-25']),
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions: expect.any(String),
      ttlMs: 3_600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'toolgate', version: expect.any(String) } },
    });
    expect(result(answer).supportedVersions[0]).toBe('2026-07-28');
  });

  it("lists each caller's own tools in a fixed order, with private cache hints and the server's identity", async () => {
    const acme = await modern('acme').listTools();
    expect(acme.status).toBe(200);
    expect(toolNames(acme)).toEqual(['aws-s3', ...BUILTINS, 'jira-search', 'spanner-query'].sort());
    expect(result(acme)).toEqual(
      expect.objectContaining({
        resultType: 'complete',
        ttlMs: 45_000,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': expect.objectContaining({ name: 'toolgate' }) },
      }),
    );
    expect(toolNames(await modern('globex').listTools())).toEqual([...BUILTINS, 'jira-search'].sort());
    expect(toolNames(await modern('initech').listTools())).toEqual(['jira-search']);
    // A profile narrows the set, by path or by header, exactly as for a 2025-era client.
    expect(toolNames(await modern('acme', '/mcp/profiles/support').listTools())).toEqual(['echo']);
    expect(toolNames(await modern('acme', '/mcp', { 'X-Agent-Profile': 'support' }).listTools())).toEqual(['echo']);
  });

  it('serves the same tools and calls to a 2025-11-25 SDK client on the same endpoint', async () => {
    const client = new Client({ name: 'legacy-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: bearer(keys.acme) },
      }),
    );
    try {
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
      const legacyNames = (await client.listTools()).tools.map((tool) => tool.name);
      expect(legacyNames).toEqual(toolNames(await modern('acme').listTools()));
      const legacy = await client.callTool({ name: 'echo', arguments: { text: 'old' } });
      const current = result(await modern('acme').callTool('echo', { text: 'old' }));
      expect(current.structuredContent.echo).toEqual((legacy.structuredContent as { echo: unknown }).echo);
      expect(current.content).toEqual([{ type: 'text', text: expect.stringContaining('"echo":{"text":"old"}') }]);
    } finally {
      await client.close();
    }
  });

  it('runs calls through the same governance: success, hidden tool, bad arguments, unknown name, audit', async () => {
    const ok = await modern('acme').callTool('echo', { text: 'via 2026' });
    expect(ok.status).toBe(200);
    expect(ok.notifications).toEqual([]);
    expect(result(ok)).toEqual(
      expect.objectContaining({
        resultType: 'complete',
        structuredContent: expect.objectContaining({ echo: { text: 'via 2026' }, tenant: 'acme' }),
        _meta: expect.objectContaining({ 'io.modelcontextprotocol/serverInfo': expect.anything() }),
      }),
    );
    const hidden = await modern('globex').callTool('aws-s3', {});
    expect(hidden.response?.error).toEqual(
      expect.objectContaining({ code: -32602, message: expect.stringMatching(/Unknown tool 'aws-s3'/) }),
    );
    const bad = result(await modern('acme').callTool('strict', { user: {} }));
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toContain('$.user.name is required');
    const unknown = await modern('acme').callTool('ecko', {});
    expect(unknown.response?.error?.message).toMatch(/Unknown tool 'ecko'.*Did you mean 'echo'/);
    expect((await auditOf('tenant_id=globex&status=denied')).map((row) => row.tool_name)).toContain('aws-s3');
    const profiled = await modern('acme', '/mcp/profiles/support').callTool('echo', { text: 'p' });
    expect(result(profiled).isError).toBeFalsy();
    expect(await modern('acme', '/mcp/profiles/support').callTool('jira-search', {})).toEqual(
      expect.objectContaining({
        response: expect.objectContaining({ error: expect.objectContaining({ code: -32602 }) }),
      }),
    );
  });

  it("streams progress on the call's own response, and log messages only when _meta asks for a level", async () => {
    const plain = await modern('acme').callTool('progress', { steps: 3 }, { meta: { progressToken: 'p-1' } });
    expect(methods(plain.notifications)).toEqual(Array(3).fill('notifications/progress'));
    expect(plain.notifications.map((message) => message.params)).toEqual(
      [1, 2, 3].map((progress) => ({ progressToken: 'p-1', progress })),
    );
    expect(result(plain).structuredContent).toEqual({ steps: 3 });

    const logged = await modern('acme').callTool(
      'progress',
      { steps: 2 },
      { meta: { progressToken: 7, 'io.modelcontextprotocol/logLevel': 'debug' } },
    );
    expect(methods(logged.notifications)).toEqual([
      'notifications/message',
      'notifications/progress',
      'notifications/progress',
      'notifications/message',
    ]);
    expect(logged.notifications[3].params).toEqual({ level: 'info', logger: 'toolgate', data: 'progress completed' });

    const warningsOnly = await modern('acme').callTool(
      'explode',
      {},
      { meta: { 'io.modelcontextprotocol/logLevel': 'warning' } },
    );
    expect(logged.notifications.every((message) => message.params?._meta === undefined)).toBe(true);
    expect(warningsOnly.notifications).toEqual([
      expect.objectContaining({
        method: 'notifications/message',
        params: expect.objectContaining({ level: 'warning' }),
      }),
    ]);
    expect(result(warningsOnly).isError).toBe(true);

    const bad = await modern('acme').callTool('echo', {}, { meta: { 'io.modelcontextprotocol/logLevel': 'loud' } });
    expect(bad.response?.error?.code).toBe(-32602);
  });

  it('cancels the tool when the client closes the response stream', async () => {
    const abort = new AbortController();
    const pending = modern('acme').callTool(
      'slow',
      { ms: 20_000 },
      {
        meta: { progressToken: 'c', 'io.modelcontextprotocol/logLevel': 'debug' },
        signal: abort.signal,
        onNotification: () => abort.abort(),
      },
    );
    // The client cut the stream at the first notification: no response ever came.
    expect((await pending).response).toBeUndefined();
    await waitFor(
      async () => (await auditOf('tool_name=slow&status=cancelled')).length === 1,
      5000,
      'the cancelled call in the audit trail',
    );
  });

  it('refuses headers that do not match the body with HeaderMismatch, running nothing', async () => {
    const before = (await auditOf('tool_name=echo')).length;
    const client = modern('acme');
    const cases: Record<string, string | undefined>[] = [
      { 'Mcp-Name': 'strict' },
      { 'Mcp-Name': undefined },
      { 'Mcp-Method': 'tools/list' },
      { 'MCP-Protocol-Version': undefined },
      { 'MCP-Protocol-Version': '2025-11-25' },
      { 'Mcp-Name': '=?base64?not base64?=' },
    ];
    for (const headers of cases) {
      const answer = await client.callTool('echo', { text: 'x' }, { headers });
      expect(answer.status).toBe(400);
      expect(answer.response).toEqual({
        jsonrpc: '2.0',
        id: expect.any(Number),
        error: { code: -32020, message: expect.stringMatching(/^Header mismatch: /) },
      });
    }
    expect((await auditOf('tool_name=echo')).length).toBe(before);
    // The Base64 sentinel is decoded before comparing.
    const encoded = await client.callTool('echo', { text: 'y' }, { headers: { 'Mcp-Name': '=?base64?ZWNobw==?=' } });
    expect(result(encoded).isError).toBeFalsy();
  });

  it('checks the Mcp-Param headers of x-mcp-header parameters against the arguments, running nothing on a mismatch', async () => {
    const client = modern('acme');
    const listed = (result(await client.listTools()).tools as { name: string; inputSchema: unknown }[]).find(
      (tool) => tool.name === 'spanner-query',
    );
    expect(listed?.inputSchema).toMatchObject({ properties: { region: { 'x-mcp-header': 'Region' } } });
    const before = (await auditOf('tool_name=spanner-query')).length;
    const query = 'SELECT 1';
    const refused: [Record<string, unknown>, Record<string, string>][] = [
      [{ region: 'us-west1', query }, {}],
      [{ region: 'us-west1', query }, { 'Mcp-Param-Region': 'eu-west1' }],
      [{ region: 'us-west1', query }, { 'Mcp-Param-Region': '=?base64?@@?=' }],
      [{ query }, { 'Mcp-Param-Region': 'us-west1' }],
    ];
    for (const [args, headers] of refused) {
      const answer = await client.callTool('spanner-query', args, { headers, mirrorParameters: false });
      expect(answer.status).toBe(400);
      expect(answer.response?.error).toEqual({
        code: -32020,
        message: expect.stringMatching(/^Header mismatch: Mcp-Param-Region /),
      });
    }
    expect((await auditOf('tool_name=spanner-query')).length).toBe(before);
    // Matching headers, plain or in the Base64 sentinel (decoded before comparing), and none for an absent argument.
    const zurich = `=?base64?${Buffer.from('Zürich').toString('base64')}?=`;
    const accepted: [Record<string, unknown>, Record<string, string>][] = [
      [{ region: 'us-west1', query }, { 'Mcp-Param-Region': 'us-west1' }],
      [{ region: 'Zürich', query }, { 'Mcp-Param-Region': zurich }],
      [{ query }, {}],
    ];
    for (const [args, headers] of accepted) {
      const answer = await client.callTool('spanner-query', args, { headers, mirrorParameters: false });
      expect(answer.status).toBe(200);
      expect(answer.response?.error).toBeUndefined();
    }
    expect((await auditOf('tool_name=spanner-query')).length).toBe(before + accepted.length);
    // A client mirroring the parameters itself, as the transport page asks, is served.
    const mirrored = await client.callTool('spanner-query', { region: 'eu-north1', query });
    expect(mirrored.response?.error).toBeUndefined();
  });

  it('answers an unknown protocol version with UnsupportedProtocolVersion listing the supported ones', async () => {
    const answer = await new Mcp2026Client(`${t.baseUrl}/mcp`, bearer(keys.acme), '1900-01-01').listTools();
    expect(answer.status).toBe(400);
    expect(answer.response?.error).toEqual({
      code: -32022,
      message: expect.stringContaining('1900-01-01'),
      data: { supported: expect.arrayContaining(['2026-07-28', '2025-11-25']), requested: '1900-01-01' },
    });
  });

  it('answers a method it does not serve with 404 and Method not found, and no credentials with 401', async () => {
    const answer = await modern('acme').request('resources/list', {});
    expect(answer.status).toBe(404);
    expect(answer.response?.error?.code).toBe(-32601);
    const anonymous = await new Mcp2026Client(`${t.baseUrl}/mcp`, {}).discover();
    expect(anonymous.status).toBe(401);
  });

  it('tells a subscribed client when its own tool set changes, and only then', async () => {
    const abort = new AbortController();
    const seen: JsonRpcMessage[] = [];
    const client = modern('acme');
    const stream = client.listen(
      { toolsListChanged: true, promptsListChanged: true },
      {
        signal: abort.signal,
        onNotification: (message) => seen.push(message),
      },
    );
    await waitFor(async () => seen.length === 1, 5000, 'the acknowledgement');
    expect(seen[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 1 }, notifications: { toolsListChanged: true } },
    });
    // A tool acme cannot see changes first: acme hears nothing of it.
    await approvedTool(t, 'globex-only', { tenant_access: { mode: 'allowlist', allowlist: ['globex'] } });
    const quarantined = await approvedTool(t, 'quarantined-later');
    await waitFor(async () => seen.length >= 2, 5000, 'notifications/tools/list_changed');
    await review(t, quarantined, 'blocked');
    await waitFor(async () => seen.length >= 3, 5000, 'a second list_changed after the quarantine');
    abort.abort();
    await stream;
    expect(seen.slice(1)).toEqual(
      Array(2).fill({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } },
      }),
    );
    expect(toolNames(await client.listTools())).not.toContain('quarantined-later');
  });
});

describe('MCP 2026-07-28 tool budget', () => {
  let t: TestApp;
  let client: Mcp2026Client;

  beforeAll(async () => {
    t = await startApp('postgres', testkit({ max_listed_tools: 3 }));
    client = new Mcp2026Client(`${t.baseUrl}/mcp`, bearer(await memberKey(t, 'acme')));
  });
  afterAll(() => t?.close());

  it('lists search_tools and call_tool over budget, and runs a tool through call_tool', async () => {
    expect(toolNames(await client.listTools())).toEqual(['search_tools', 'call_tool']);
    const found = result(await client.callTool('search_tools', { query: 'echo the arguments back' }));
    expect(found.structuredContent.tools.map((tool: { name: string }) => tool.name)).toContain('echo');
    const called = result(await client.callTool('call_tool', { name: 'echo', arguments: { text: 'meta' } }));
    expect(called.structuredContent).toEqual(expect.objectContaining({ echo: { text: 'meta' }, tenant: 'acme' }));
  });
});

describe('MCP 2026-07-28 subscriptions across replicas', () => {
  it('delivers a quarantine made on one replica to a listener on another, and ends the stream at shutdown', async () => {
    const cluster = await startReplicas(testkit());
    const [listening, deciding] = cluster.replicas;
    let closing: Promise<void> | undefined;
    try {
      const tool = await approvedTool(deciding, 'replicated-tool');
      const client = new Mcp2026Client(`${listening.baseUrl}/mcp`, bearer(await memberKey(listening, 'acme')));
      const seen: JsonRpcMessage[] = [];
      const stream = client.listen({ toolsListChanged: true }, { onNotification: (message) => seen.push(message) });
      await waitFor(async () => seen.length === 1, 5000, 'the acknowledgement');
      await review(deciding, tool, 'blocked');
      await waitFor(async () => seen.length === 2, 10_000, 'list_changed from the other replica');
      expect(seen[1].method).toBe('notifications/tools/list_changed');
      // Shutting the listening replica down ends the subscription with its response, not a cut stream.
      closing = cluster.close();
      expect((await stream).response).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } },
      });
    } finally {
      await (closing ?? cluster.close());
    }
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { randomBytes } from 'node:crypto';
import { FakeChatServer } from '../bench/support/fake-chat-server';
import { bearer, startApp, TestApp } from './support/app';
import { memberKey } from './support/catalog';
import { MutableMcpServer } from './support/mcp-servers';
import { OtlpReceiver, ReceivedSpan } from './support/otlp-receiver';
import { waitFor } from './support/wait';

const SERVER_KIND = 2;
const CLIENT_KIND = 3;
/** A value that must never leave the service in a span: it is only ever a tool argument. */
const SECRET_ARGUMENT = 'argument-sentinel-7f3a9c';

function traceparent(): { header: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

function lookupTool(server: MutableMcpServer): void {
  server.setTool({
    definition: {
      name: 'lookup',
      description: 'Looks a word up.',
      inputSchema: { type: 'object', properties: { word: { type: 'string' } } },
    },
    run: (args) => ({ text: `found ${String(args.word).length} letters` }),
  });
}

describe('OpenTelemetry tracing', () => {
  let receiver: OtlpReceiver;
  let upstream: MutableMcpServer;
  let model: FakeChatServer;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    receiver = await new OtlpReceiver().start();
    upstream = await new MutableMcpServer().start();
    model = await FakeChatServer.start();
    lookupTool(upstream);
    t = await startApp('postgres', {
      config: {
        builtins: { file_search: { enabled: false } },
        engine: { upstream: { url: model.url, model: 'local-model' } },
        catalog: { review: { judge_with_engine_upstream: false } },
        mcp_servers: [{ name: 'up', url: upstream.url, refresh_interval: '1h' }],
        observability: {
          tracing: { otlp_endpoint: receiver.url, service_name: 'toolgate-test', export_delay: '100ms' },
        },
      },
    });
    await waitFor(async () => (await t.http.get('/v1/tools?q=up-').set(bearer(t.adminKey))).body.data.length === 1);
    key = await memberKey(t, 'acme');
  });
  afterAll(async () => {
    await t?.close();
    await upstream?.stop();
    await model?.close();
    await receiver?.stop();
  });

  async function mcpClient(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'tracing-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { ...bearer(key), ...headers } },
      }),
    );
    return client;
  }

  /** The tool-call span of a trace, once exported, with the spans it descends from. */
  async function toolCallSpanOf(traceId: string): Promise<ReceivedSpan> {
    await waitFor(
      () => receiver.named('execute_tool').some((span) => span.traceId === traceId),
      10_000,
      'the tool-call span',
    );
    return receiver.named('execute_tool').find((span) => span.traceId === traceId)!;
  }

  it('chains the caller’s traceparent -> /mcp request -> tool call -> upstream MCP call, and tells the upstream', async () => {
    const caller = traceparent();
    const client = await mcpClient({ traceparent: caller.header });
    const calledBefore = upstream.received.length;
    try {
      const result = await client.callTool({ name: 'up-lookup', arguments: { word: SECRET_ARGUMENT } });
      expect(result.isError ?? false).toBe(false);
    } finally {
      await client.close();
    }

    const toolCall = await toolCallSpanOf(caller.traceId);
    expect(toolCall.attributes).toMatchObject({
      'gen_ai.tool.name': 'up-lookup',
      'toolgate.tool.source': 'mcp',
      'toolgate.tenant_id': 'acme',
      'toolgate.tool_call.outcome': 'completed',
    });
    expect(toolCall.serviceName).toBe('toolgate-test');
    const request = receiver.byId(toolCall.parentSpanId)!;
    expect(request).toMatchObject({ name: 'POST /mcp', kind: SERVER_KIND, traceId: caller.traceId });
    expect(request.parentSpanId).toBe(caller.spanId);
    expect(request.attributes).toMatchObject({ 'http.route': '/mcp', 'http.response.status_code': 200 });

    await waitFor(() => receiver.named('tools/call lookup').some((span) => span.traceId === caller.traceId));
    const upstreamCall = receiver.named('tools/call lookup').find((span) => span.traceId === caller.traceId)!;
    expect(upstreamCall).toMatchObject({ kind: CLIENT_KIND, parentSpanId: toolCall.spanId });
    expect(upstreamCall.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'toolgate.mcp.source': 'up' });

    // The upstream server was handed the client span as its parent, in the HTTP header and in _meta alike.
    const received = upstream.received.slice(calledBefore);
    expect(received).toHaveLength(1);
    const expected = `00-${caller.traceId}-${upstreamCall.spanId}-01`;
    expect(received[0].headers.traceparent).toBe(expected);
    expect(received[0].meta?.traceparent).toBe(expected);

    expect(receiver.bodies.join('\n')).not.toContain(SECRET_ARGUMENT);
  });

  it('takes the tool call’s parent from the traceparent in the MCP request’s _meta', async () => {
    const caller = traceparent();
    const client = await mcpClient({});
    try {
      await client.callTool({
        name: 'up-lookup',
        arguments: { word: 'meta' },
        _meta: { traceparent: caller.header, tracestate: 'vendor=abc' },
      });
    } finally {
      await client.close();
    }
    const toolCall = await toolCallSpanOf(caller.traceId);
    expect(toolCall.parentSpanId).toBe(caller.spanId);
    const received = upstream.received.at(-1)!;
    expect(String(received.meta?.traceparent)).toContain(caller.traceId);
    expect(received.meta?.tracestate).toBe('vendor=abc');
  });

  it('ignores a malformed traceparent and starts a trace of its own', async () => {
    const response = await t.http
      .post('/v1/tool_calls')
      .set(bearer(key))
      .set('traceparent', `00-${'z'.repeat(32)}-${'0'.repeat(16)}-01`)
      .send({ name: 'up-lookup', arguments: { word: 'x' } })
      .expect(200);
    expect(response.body.status).toBe('completed');
    const sent = String(upstream.received.at(-1)!.headers.traceparent);
    expect(sent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(sent).not.toContain('z'.repeat(32));
  });

  it('traces /v1/tool_calls as request span -> tool-call span, without the arguments', async () => {
    const caller = traceparent();
    const response = await t.http
      .post('/v1/tool_calls')
      .set(bearer(key))
      .set('traceparent', caller.header)
      .send({ name: 'up-lookup', arguments: { word: SECRET_ARGUMENT } })
      .expect(200);
    expect(response.body.status).toBe('completed');

    const toolCall = await toolCallSpanOf(caller.traceId);
    const request = receiver.byId(toolCall.parentSpanId)!;
    expect(request).toMatchObject({ name: 'POST /v1/tool_calls', kind: SERVER_KIND, parentSpanId: caller.spanId });
    expect(toolCall.attributes['toolgate.tool_call.outcome']).toBe('completed');
    // The audit record's writes, which the call waits for, are its children; the audit keeps the arguments,
    // their spans do not.
    const auditWrites = receiver.spans.filter(
      (span) => span.traceId === caller.traceId && span.name.endsWith(' tool_audit_records'),
    );
    expect(auditWrites.map((span) => span.name).sort()).toEqual([
      'INSERT tool_audit_records',
      'UPDATE tool_audit_records',
    ]);
    for (const span of auditWrites) {
      expect(span).toMatchObject({ parentSpanId: toolCall.spanId, kind: CLIENT_KIND });
      expect(span.attributes['db.collection.name']).toBe('tool_audit_records');
    }
    expect(receiver.bodies.join('\n')).not.toContain(SECRET_ARGUMENT);
  });

  it('traces a /v1/responses model turn as a client span of the request, and tells the model server', async () => {
    const caller = traceparent();
    model.script({ text: 'Hello' });
    await t.http
      .post('/v1/responses')
      .set(bearer(key))
      .set('traceparent', caller.header)
      .send({ model: 'any', input: 'hi' })
      .expect(200);
    const inTrace = () => receiver.spans.filter((span) => span.traceId === caller.traceId);
    await waitFor(() => inTrace().some((span) => span.name === 'chat local-model'), 10_000, 'the model turn span');
    const turn = inTrace().find((span) => span.name === 'chat local-model')!;
    expect(turn).toMatchObject({ kind: CLIENT_KIND, attributes: { 'gen_ai.request.model': 'local-model' } });
    expect(receiver.byId(turn.parentSpanId)).toMatchObject({ name: 'POST /v1/responses', parentSpanId: caller.spanId });
    expect(model.requests.at(-1)!.headers.traceparent).toBe(`00-${caller.traceId}-${turn.spanId}-01`);
  });

  it('records how a refused call ended: an unknown tool has no tool name, a bad argument is invalid', async () => {
    const unknown = traceparent();
    await t.http
      .post('/v1/tool_calls')
      .set(bearer(key))
      .set('traceparent', unknown.header)
      .send({ name: 'no-such-tool', arguments: {} });
    const unknownSpan = await toolCallSpanOf(unknown.traceId);
    expect(unknownSpan.attributes['toolgate.tool_call.outcome']).toBe('unknown_tool');
    expect(unknownSpan.attributes['gen_ai.tool.name']).toBeUndefined();

    const invalid = traceparent();
    await t.http
      .post('/v1/tool_calls')
      .set(bearer(key))
      .set('traceparent', invalid.header)
      .send({ name: 'up-lookup', arguments: { word: 42 } });
    const invalidSpan = await toolCallSpanOf(invalid.traceId);
    expect(invalidSpan.attributes).toMatchObject({
      'toolgate.tool_call.outcome': 'invalid',
      'gen_ai.tool.name': 'up-lookup',
    });
  });
});

describe('OpenTelemetry tracing at shutdown and when off', () => {
  let receiver: OtlpReceiver;
  let upstream: MutableMcpServer;

  beforeAll(async () => {
    receiver = await new OtlpReceiver().start();
    upstream = await new MutableMcpServer().start();
    lookupTool(upstream);
  });
  afterAll(async () => {
    await upstream?.stop();
    await receiver?.stop();
  });

  async function withApp(tracing: object, run: (t: TestApp, key: string) => Promise<void>): Promise<void> {
    const t = await startApp('postgres', {
      config: {
        builtins: { file_search: { enabled: false } },
        mcp_servers: [{ name: 'up', url: upstream.url, refresh_interval: '1h' }],
        observability: { tracing },
      },
    });
    try {
      await waitFor(async () => (await t.http.get('/v1/tools?q=up-').set(bearer(t.adminKey))).body.data.length === 1);
      await run(t, await memberKey(t, 'acme'));
    } finally {
      await t.close();
    }
  }

  it('exports the spans still queued when the service stops', async () => {
    const caller = traceparent();
    await withApp({ otlp_endpoint: receiver.url, export_delay: '1h' }, async (t, key) => {
      await t.http
        .post('/v1/tool_calls')
        .set(bearer(key))
        .set('traceparent', caller.header)
        .send({ name: 'up-lookup', arguments: { word: 'bye' } })
        .expect(200);
      expect(receiver.spans.filter((span) => span.traceId === caller.traceId)).toEqual([]);
    });
    const names = receiver.spans.filter((span) => span.traceId === caller.traceId).map((span) => span.name);
    expect(names).toEqual(expect.arrayContaining(['POST /v1/tool_calls', 'execute_tool', 'tools/call lookup']));
  });

  it('sends nothing and adds no trace context upstream while otlp_endpoint is unset', async () => {
    const caller = traceparent();
    const exportedBefore = receiver.bodies.length;
    await withApp({}, async (t, key) => {
      await t.http
        .post('/v1/tool_calls')
        .set(bearer(key))
        .set('traceparent', caller.header)
        .send({ name: 'up-lookup', arguments: { word: 'quiet' } })
        .expect(200);
    });
    const received = upstream.received.at(-1)!;
    expect(received.headers.traceparent).toBeUndefined();
    expect(received.meta?.traceparent).toBeUndefined();
    expect(receiver.bodies.length).toBe(exportedBefore);
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { engineName, registerApprovedSource, startBenchApp } from './support/harness';
import { startModernUpstream } from './support/mcp-2026-upstream';
import { startUpstream } from './support/mcp-upstream';

const WARMUP = 50;
const CALLS = 400;

interface Latency {
  label: string;
  p50: number;
  p99: number;
  mean: number;
}

async function time(label: string, call: () => Promise<unknown>): Promise<Latency> {
  for (let i = 0; i < WARMUP; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { label, p50: at(0.5), p99: at(0.99), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

function print(title: string, baseline: Latency, subject: Latency): void {
  const row = (r: Latency) =>
    `  ${r.label.padEnd(52)} p50 ${r.p50.toFixed(2).padStart(7)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms   mean ${r.mean.toFixed(2).padStart(7)} ms`;
  console.log(`\n${title} (${CALLS} sequential calls)`);
  console.log(row(baseline));
  console.log(row(subject));
  console.log(
    `  ratio (subject / baseline): p50 ${(subject.p50 / baseline.p50).toFixed(2)}x, p99 ${(subject.p99 / baseline.p99).toFixed(2)}x, mean ${(subject.mean / baseline.mean).toFixed(2)}x; ` +
      `added p50 ${(subject.p50 - baseline.p50).toFixed(2)} ms`,
  );
}

async function sdkClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/**
 * What stateless /mcp builds for every POST: a server with its two handlers and a transport, connected
 * and closed. The SDK's default gives each server its own Ajv instance; the gateway shares one.
 */
async function serverPerRequest(validator?: AjvJsonSchemaValidator): Promise<void> {
  const server = new Server(
    { name: 'bench', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, ...(validator && { jsonSchemaValidator: validator }) },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  server.setRequestHandler(CallToolRequestSchema, () => ({ content: [] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  await transport.close();
  await server.close();
}

/**
 * A tool call to an upstream MCP server: directly with the SDK client (baseline), through Toolgate's
 * POST /v1/tool_calls (issue 6), and through Toolgate's own MCP endpoint /mcp (issue 9, stateless since
 * issue 14: a server and transport per POST), in one run; then the cost of that per-request construction.
 * Toolgate runs twice: with the definition check on every call (the default: one tools/list round trip
 * to the upstream per call) and with the listing reused for up to 30 s (mcp.definition_check_max_age). Then the
 * same call to an upstream speaking 2026-07-28 against one speaking 2025-11-25.
 */
export async function run(): Promise<void> {
  const upstream = await startUpstream();
  try {
    const direct = await sdkClient(upstream.url);
    await throughToolgate(upstream.url, direct, 'definition checked on every call', {});
    await throughToolgate(upstream.url, direct, 'listing reused up to 30 s', { definition_check_max_age: '30s' });
    await direct.close();
  } finally {
    await upstream.stop();
  }
  await upstreamEras();
  const shared = new AjvJsonSchemaValidator();
  print(
    'Per-request MCP server and transport of stateless /mcp',
    await time('SDK default (an Ajv instance per server)', () => serverPerRequest()),
    await time('as the gateway builds it (one shared validator)', () => serverPerRequest(shared)),
  );
}

/**
 * The same call through POST /v1/tool_calls to an upstream in each era: the 2025 SDK path (a pooled session)
 * against 2026-07-28 (a POST of its own per request, no session), both with the definition check on every call.
 */
async function upstreamEras(): Promise<void> {
  const [legacy, modern] = await Promise.all([startUpstream(), startModernUpstream()]);
  const app = await startBenchApp({ builtins: { file_search: { enabled: false } } });
  const headers = { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json' };
  try {
    for (const [name, url] of [
      ['legacy', legacy.url],
      ['modern', modern.url],
    ]) {
      await registerApprovedSource(app.baseUrl, app.adminKey, { name, url }, `${name}-echo`);
    }
    const call = (tool: string) => async () => {
      const res = await fetch(`${app.baseUrl}/v1/tool_calls`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: tool, arguments: { text: 'hello' } }),
      });
      const body = (await res.json()) as { status: string };
      if (body.status !== 'completed') throw new Error(`tool call ${body.status}`);
    };
    print(
      `MCP tool call through Toolgate to an upstream in 2026-07-28 versus 2025-11-25 (${engineName()})`,
      await time('/v1/tool_calls -> 2025-11-25 upstream (SDK session)', call('legacy-echo')),
      await time('/v1/tool_calls -> 2026-07-28 upstream (stateless)', call('modern-echo')),
    );
  } finally {
    await app.close();
    await legacy.stop();
    await modern.stop();
  }
}

async function throughToolgate(
  upstreamUrl: string,
  direct: Client,
  setting: string,
  mcp: { definition_check_max_age?: string },
): Promise<void> {
  const app = await startBenchApp({ builtins: { file_search: { enabled: false } }, mcp });
  const headers = { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json' };
  try {
    await registerApprovedSource(app.baseUrl, app.adminKey, { name: 'upstream', url: upstreamUrl }, 'upstream-echo');
    const viaGateway = await sdkClient(`${app.baseUrl}/mcp`, { Authorization: `Bearer ${app.adminKey}` });
    const args = { text: 'hello' };
    const baseline = await time('direct SDK client -> upstream', () =>
      direct.callTool({ name: 'echo', arguments: args }),
    );
    const http = await time('POST /v1/tool_calls -> Toolgate -> upstream', async () => {
      const res = await fetch(`${app.baseUrl}/v1/tool_calls`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'upstream-echo', arguments: args }),
      });
      const body = (await res.json()) as { status: string };
      if (body.status !== 'completed') throw new Error(`tool call ${body.status}`);
    });
    const gateway = await time('SDK client -> Toolgate /mcp -> upstream', () =>
      viaGateway.callTool({ name: 'upstream-echo', arguments: args }),
    );
    const on = `${engineName()}, ${setting}`;
    print(`MCP tool call through Toolgate (HTTP API) versus direct (${on})`, baseline, http);
    print(`MCP tool call through the /mcp gateway versus direct (${on})`, baseline, gateway);
    await viaGateway.close();
  } finally {
    await app.close();
  }
}

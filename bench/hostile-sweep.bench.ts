import { monitorEventLoopDelay } from 'node:perf_hooks';
import { FakeChatServer } from './support/fake-chat-server';
import { asFile, HOSTILE_CLASSES, HostileClass, manyKeys, nestedJson } from './support/hostile-inputs';
import { HostileUpstream } from './support/hostile-upstreams';
import { BenchApp, startBenchApp } from './support/harness';

/**
 * Every entry point that takes untrusted bytes, fed every class of hostile input (runs of one character class,
 * bracket nesting, long lines without separators, unicode edge cases, huge numbers of tiny items): uploads of each
 * parsed file type (added to a vector store and ingested), tool descriptions and schemas, MCP discovery answers
 * and tool results, upstream model streams, search backend answers, request bodies and headers. For each case it
 * prints the outcome, the worst event-loop delay of the service's process while the case ran, and its peak RSS.
 * Goal: worst delay under 100 ms everywhere, RSS bounded by the configured caps.
 *
 * HOSTILE_SWEEP_MB sets the size of each input (default 1; the 10 MB runs: HOSTILE_SWEEP_MB=10);
 * HOSTILE_SWEEP_ENTRIES=upload,mcp-result (substrings) limits the entry points.
 */
const SIZE = Math.round(Number(process.env.HOSTILE_SWEEP_MB ?? '1') * 1024 * 1024);
const CASE_TIMEOUT_MS = 120_000;
const FILE_TYPES = ['txt', 'md', 'csv', 'json', 'html'];
const MB = 1024 * 1024;

interface Row {
  entry: string;
  input: string;
  outcome: string;
  delayMs: number;
  rssMb: number;
}

type Case = (text: string, input: HostileClass) => Promise<string>;

export async function run(): Promise<void> {
  const upstream = await HostileUpstream.start();
  const chat = await FakeChatServer.start();
  const app = await startBenchApp({
    mcp_servers: [{ name: 'hostile', url: upstream.mcpUrl }],
    engine: { upstream: { url: chat.url, model: 'sweep-model' } },
    builtins: {
      web_search: { enabled: true, search_engine_url: upstream.baseUrl, cache_ttl: '0s' },
      file_search: { poll_interval: '100ms' },
    },
  } as never);
  const storeId = ((await api(app, 'POST', '/v1/vector_stores', { name: 'sweep' })).body as { id: string }).id;
  let serial = 0;

  const entries: [string, Case][] = [
    ...FILE_TYPES.map((type): [string, Case] => [
      `upload .${type} + ingest`,
      async (text) => ingest(app, storeId, `sweep-${serial++}.${type}`, asFile(type, text)),
    ]),
    [
      'tool description (POST /v1/tools)',
      async (text) =>
        (await api(app, 'POST', '/v1/tools', tool(`sweep-${serial++}`, text.slice(0, 16_384), {}))).status.toString(),
    ],
    [
      'tool schema (POST /v1/tools)',
      async (text, input) =>
        (
          await api(
            app,
            'POST',
            '/v1/tools',
            input.name === 'nested brackets'
              ? `{"name":"sweep-${serial++}","description":"d","source":{"type":"mcp","server_url":"http://127.0.0.1:9/mcp","tool_name":"t"},"schema":${nestedJson(SIZE / 2)}}`
              : tool(`sweep-${serial++}`, 'Sweep tool.', { q: { type: 'string', description: text } }),
          )
        ).status.toString(),
    ],
    [
      'request body (POST /v1/tool_calls)',
      async (text, input) =>
        (
          await api(
            app,
            'POST',
            '/v1/tool_calls',
            input.name === 'nested brackets'
              ? `{"name":"file_search","arguments":${nestedJson(SIZE / 2)}}`
              : input.name === 'many tiny lines'
                ? `{"name":"file_search","arguments":${manyKeys(SIZE / 16)}}`
                : { name: 'file_search', arguments: { query: text } },
          )
        ).status.toString(),
    ],
    [
      'request header (GET /v1/tools)',
      async (text) =>
        (await api(app, 'GET', '/v1/tools', undefined, { 'x-sweep': headerSafe(text) })).status.toString(),
    ],
    [
      'MCP discovery answer (refresh)',
      async (text, input) => {
        upstream.toolsList =
          input.name === 'many tiny lines'
            ? JSON.stringify({ tools: Array.from({ length: SIZE / 64 }, (_, i) => mcpTool(`t${i}`, 'd')) })
            : input.name === 'nested brackets'
              ? `{"tools":[{"name":"deep","inputSchema":${nestedJson(SIZE / 2)}}]}`
              : JSON.stringify({ tools: [mcpTool('probe', text)] });
        const refreshed = await api(app, 'POST', '/v1/tools/sources/mcp/hostile/refresh');
        return `${refreshed.status}`;
      },
    ],
    [
      'MCP tool result (POST /v1/tool_calls)',
      async (text, input) => {
        upstream.toolsList = JSON.stringify({ tools: [mcpTool('echo', 'Echoes text.')] });
        await api(app, 'POST', '/v1/tools/sources/mcp/hostile/refresh');
        upstream.toolResult =
          input.name === 'nested brackets'
            ? `{"content":[],"structuredContent":{"v":${nestedJson(SIZE / 2)}}}`
            : JSON.stringify({ content: [{ type: 'text', text }] });
        return outcome(await api(app, 'POST', '/v1/tool_calls', { name: 'hostile-echo', arguments: {} }));
      },
    ],
    [
      'upstream model stream (POST /v1/responses)',
      async (text) => {
        const chunk = JSON.stringify({
          id: 'c',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'sweep-model',
          choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
        });
        chat.script({ raw: `data: ${chunk}\n\ndata: [DONE]\n\n` });
        return outcome(await api(app, 'POST', '/v1/responses', { model: 'sweep-model', input: 'hello' }));
      },
    ],
    [
      'upstream stream line without newline',
      async (text) => {
        chat.script({ raw: `data: ${text}` });
        return outcome(await api(app, 'POST', '/v1/responses', { model: 'sweep-model', input: 'hello' }));
      },
    ],
    [
      'search backend answer (web_search)',
      async (text, input) => {
        upstream.searchAnswer =
          input.name === 'many tiny lines'
            ? JSON.stringify({
                results: Array.from({ length: SIZE / 64 }, (_, i) => ({ title: 't', url: `https://a.example/${i}` })),
              })
            : input.name === 'nested brackets'
              ? `{"results":${nestedJson(SIZE / 2)}}`
              : JSON.stringify({ results: [{ title: text, url: 'https://a.example/', content: text }] });
        return outcome(await api(app, 'POST', '/v1/tool_calls', { name: 'web_search', arguments: { query: 'q' } }));
      },
    ],
  ];

  const wanted = process.env.HOSTILE_SWEEP_ENTRIES?.split(',').filter(Boolean);
  const rows: Row[] = [];
  try {
    console.log(`\nHostile-input sweep: ${(SIZE / MB).toFixed(1)} MB per input, one case at a time`);
    for (const [entry, work] of entries) {
      if (wanted && !wanted.some((w) => entry.includes(w))) continue;
      for (const input of HOSTILE_CLASSES) {
        const row = await measureCase(entry, input, work);
        rows.push(row);
        console.log(
          `  ${entry.padEnd(44)} ${input.name.padEnd(34)} ${row.outcome.slice(0, 28).padEnd(28)} ` +
            `loop delay ${row.delayMs.toFixed(0).padStart(6)} ms   RSS ${row.rssMb.toFixed(0).padStart(5)} MB`,
        );
      }
    }
    summarise(rows);
  } finally {
    await app.close();
    await chat.close();
    await upstream.close();
  }
}

/** Runs one case while watching the event loop (10 ms resolution) and sampling RSS. */
async function measureCase(entry: string, input: HostileClass, work: Case): Promise<Row> {
  const text = input.make(SIZE);
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  histogram.enable();
  let outcome: string;
  try {
    outcome = await Promise.race([
      work(text, input),
      new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), CASE_TIMEOUT_MS).unref()),
    ]);
  } catch (error) {
    outcome = `error: ${(error as Error).message}`;
  }
  histogram.disable();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { entry, input: input.name, outcome, delayMs: histogram.max / 1e6, rssMb: peak / MB };
}

function summarise(rows: Row[]): void {
  console.log('\nWorst per entry point (goal: loop delay < 100 ms)');
  const entries = [...new Set(rows.map((r) => r.entry))];
  for (const entry of entries) {
    const mine = rows.filter((r) => r.entry === entry);
    const worst = mine.reduce((a, b) => (b.delayMs > a.delayMs ? b : a));
    const rss = Math.max(...mine.map((r) => r.rssMb));
    console.log(
      `  ${entry.padEnd(44)} worst ${worst.delayMs.toFixed(0).padStart(6)} ms (${worst.input})   peak RSS ${rss.toFixed(0)} MB` +
        `   ${worst.delayMs < 100 ? 'ok' : 'OVER'}`,
    );
  }
  const over = rows.filter((r) => r.delayMs >= 100).length;
  console.log(`  cases over 100 ms: ${over} of ${rows.length}`);
}

function tool(name: string, description: string, properties: Record<string, unknown>) {
  return {
    name,
    description,
    source: { type: 'mcp', server_url: 'http://127.0.0.1:9/mcp', server_name: 'sweep', tool_name: name },
    schema: { type: 'object', properties },
  };
}

function mcpTool(name: string, description: string) {
  return { name, description, inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };
}

/** Header values cannot carry control characters or non-Latin-1 text; the rest of the class is sent as is. */
function headerSafe(text: string): string {
  return Buffer.from(text.slice(0, 12_000), 'latin1')
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, 'x');
}

async function ingest(app: BenchApp, storeId: string, name: string, content: string): Promise<string> {
  const form = new FormData();
  form.append('purpose', 'assistants');
  form.append('file', new Blob([content]), name);
  const uploaded = await fetch(`${app.baseUrl}/v1/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${app.adminKey}` },
    body: form,
  });
  if (!uploaded.ok) return `upload ${uploaded.status}`;
  const fileId = ((await uploaded.json()) as { id: string }).id;
  const added = await api(app, 'POST', `/v1/vector_stores/${storeId}/files`, { file_id: fileId });
  if (added.status !== 200) return `add ${added.status}`;
  for (;;) {
    const file = (await api(app, 'GET', `/v1/vector_stores/${storeId}/files/${fileId}`)).body as {
      status: string;
      last_error: { code: string } | null;
    };
    if (file.status !== 'in_progress') return file.last_error?.code ?? file.status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function outcome(response: { status: number; body: unknown }): string {
  const body = response.body as
    { error?: { code?: string; message?: string }; is_error?: boolean; status?: string } | undefined;
  if (process.env.HOSTILE_SWEEP_DEBUG) console.log(JSON.stringify(body).slice(0, 400));
  return `${response.status} ${body?.error?.code ?? body?.status ?? (body?.is_error ? 'is_error' : '')}`.trim();
}

async function api(
  app: BenchApp,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${app.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed };
}

import { connect } from 'node:net';
import { join } from 'node:path';
import { BENCH_PROVIDERS } from './support/bench-providers';
import { FakeChatServer } from './support/fake-chat-server';
import { startBenchApp } from './support/harness';
import { startHostileMcpServer } from './support/hostile-mcp-server';

const FLOOD_STDIO = join(__dirname, '..', '..', 'test', 'fixtures', 'flood-mcp-server.js');
const ENDLESS_LINE_BYTES = 48_000_000;
const MCP_RESULT_BYTES = 450_000_000;
const SLOW_SOCKETS = 30;
/** Slow sockets still open after this are counted as held (Node's own default holds them 300 s). */
const SLOW_CEILING_MS = 15_000;

const mb = (bytes: number) => `${Math.round(bytes / 1_048_576)} MB`;

interface CaseResult {
  label: string;
  outcome: string;
  worstHealthzMs: number;
  rssBefore: number;
  rssPeak: number;
}

/**
 * Runs `work` while /healthz is asked in a loop (one request at a time) and RSS is sampled: the worst /healthz
 * answer time is how long the service stalled for everyone else.
 */
async function measured(baseUrl: string, label: string, work: () => Promise<string>): Promise<CaseResult> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  let worst = 0;
  let done = false;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  const prober = (async () => {
    while (!done) {
      const started = performance.now();
      // A refused or reset probe counts with the time it took, like a slow one.
      await fetch(`${baseUrl}/healthz`)
        .then((response) => response.arrayBuffer())
        .catch(() => undefined);
      worst = Math.max(worst, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    const outcome = await work();
    return { label, outcome, worstHealthzMs: worst, rssBefore, rssPeak };
  } finally {
    done = true;
    clearInterval(sampler);
    await prober;
  }
}

/** Opens `count` sockets that send a POST's headers, then one body byte every 200 ms; answers when all closed. */
async function slowBodies(port: number, count: number): Promise<string> {
  const started = performance.now();
  const statuses: string[] = [];
  const closings = Array.from({ length: count }, () => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.once('data', (chunk: Buffer) => statuses.push(chunk.toString('latin1').split('\r\n')[0]));
    socket.write(
      'POST /v1/tool_calls HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Content-Length: 1000000\r\n\r\n{',
    );
    const trickle = setInterval(() => socket.write('a'), 200);
    const cutOff = setTimeout(() => socket.destroy(), SLOW_CEILING_MS);
    return new Promise<boolean>((resolve) =>
      socket.once('close', () => {
        clearInterval(trickle);
        clearTimeout(cutOff);
        resolve(performance.now() - started < SLOW_CEILING_MS);
      }),
    );
  });
  const closedByServer = (await Promise.all(closings)).filter(Boolean).length;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const answered = [...new Set(statuses)].join(', ') || 'no answer';
  return `${closedByServer}/${count} closed by the service (${answered}); all gone after ${seconds} s`;
}

/**
 * `npm run bench hostile-relays`: hostile peers on each relay the service reads from or listens on, each case
 * measured by the worst /healthz delay while it runs and the process's peak RSS against its RSS before. Run it
 * on an older commit for the before figures; nothing here needs a config key that commit may lack. With
 * DATABASE_URL set the database runs outside the process, so its work does not count as the service's stall.
 */
export async function run(): Promise<void> {
  const upstream = await FakeChatServer.start();
  const hostile = await startHostileMcpServer();
  const app = await startBenchApp(
    {
      builtins: { bench: { enabled: true }, file_search: { enabled: false } },
      engine: { upstream: { url: upstream.url } },
      mcp_servers: [
        { name: 'flood', url: hostile.url, transport: 'streamable_http' },
        { name: 'floodio', command: process.execPath, args: [FLOOD_STDIO] },
      ],
    },
    BENCH_PROVIDERS,
  );
  const headers = { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${app.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    return (await response.json()) as Record<string, unknown>;
  };
  const callTool = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = await post('/v1/tool_calls', { name, arguments: args });
    const error = answer.error as { code?: string; message?: string } | null;
    return `${String(answer.status)}${error ? ` (${error.code}: ${error.message?.slice(0, 90)})` : ''}`;
  };
  const toolRuns = (response: Record<string, unknown>) => {
    if (!Array.isArray(response.output)) throw new Error(`the response failed: ${JSON.stringify(response)}`);
    return (response.output as { type: string; status: string }[]).filter(
      (item) => item.type === 'mcp_call' && item.status === 'completed',
    ).length;
  };
  try {
    for (const ping of ['flood-ping', 'floodio-ping']) {
      const deadline = Date.now() + 30_000;
      while (!(await callTool(ping)).startsWith('completed')) {
        if (Date.now() > deadline) throw new Error(`${ping} was not discovered`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    // Warm-up: the first response of a process also loads and compiles its code.
    upstream.script({ text: 'warm' });
    await post('/v1/responses', { model: 'm', input: 'hi' });
    const idle = await measured(
      app.baseUrl,
      'idle',
      () => new Promise((resolve) => setTimeout(() => resolve(''), 2000)),
    );
    console.log('\nHostile relays: worst GET /healthz while each case runs, and process RSS (same run, same server)');
    console.log(`  baseline, idle for 2 s: worst /healthz ${idle.worstHealthzMs.toFixed(1)} ms`);
    const show = (result: CaseResult) => {
      console.log(`  ${result.label}`);
      console.log(`    outcome: ${result.outcome}`);
      console.log(
        `    worst /healthz ${result.worstHealthzMs.toFixed(1)} ms (${(result.worstHealthzMs / idle.worstHealthzMs).toFixed(1)}x idle); ` +
          `RSS ${mb(result.rssBefore)} before, peak ${mb(result.rssPeak)} (+${mb(result.rssPeak - result.rssBefore)})`,
      );
    };
    show(
      await measured(app.baseUrl, `upstream model: one ${mb(ENDLESS_LINE_BYTES)} line`, async () => {
        upstream.script({ endlessLine: ENDLESS_LINE_BYTES });
        const response = await post('/v1/responses', { model: 'm', input: 'hi' });
        const error = response.error as { message?: string } | null;
        return `${String(response.status)} (${error?.message ?? 'no error'}); upstream sent ${mb(upstream.endlessBytesSent)}`;
      }),
    );
    show(
      await measured(app.baseUrl, `MCP streamable HTTP: ${mb(MCP_RESULT_BYTES)} tool result`, async () => {
        const outcome = await callTool('flood-flood', { bytes: MCP_RESULT_BYTES });
        return `${outcome}; server sent ${mb(hostile.floodBytesSent())}; then ping ${await callTool('flood-ping')}`;
      }),
    );
    show(
      await measured(app.baseUrl, `MCP stdio: ${mb(MCP_RESULT_BYTES)} tool result`, async () => {
        const outcome = await callTool('floodio-flood', { bytes: MCP_RESULT_BYTES });
        return `${outcome}; then ping ${await callTool('floodio-ping')}`;
      }),
    );
    show(
      await measured(app.baseUrl, `${SLOW_SOCKETS} unauthenticated slow-body sockets`, () =>
        slowBodies(Number(new URL(app.baseUrl).port), SLOW_SOCKETS),
      ),
    );
    const noop = { type: 'function', name: 'noop', parameters: null, strict: null };
    const calls = Array.from({ length: 128 }, () => ({ name: 'noop', arguments: '{}' }));
    show(
      await measured(app.baseUrl, 'model calling 128 tools a turn, max_tool_calls unset', async () => {
        upstream.responder = () => ({ toolCalls: calls });
        const response = await post('/v1/responses', { model: 'm', input: 'go', tools: [noop] });
        upstream.responder = undefined;
        return `${toolRuns(response)} tool runs, ${String(response.status)}`;
      }),
    );
    show(
      await measured(app.baseUrl, "model calling a tool under tool_choice 'none'", async () => {
        upstream.script({ toolCalls: [{ name: 'noop', arguments: '{}' }] }, { text: 'done' });
        const response = await post('/v1/responses', { model: 'm', input: 'go', tools: [noop], tool_choice: 'none' });
        return `${toolRuns(response)} tool runs, ${String(response.status)}`;
      }),
    );
  } finally {
    upstream.responder = undefined;
    await app.close();
    await upstream.close();
    await hostile.stop();
  }
}

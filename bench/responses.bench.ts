import { ChatRequest, FakeChatServer, Turn } from './support/fake-chat-server';
import { BENCH_PROVIDERS } from './support/bench-providers';
import { LoadResult, printComparison, startBenchApp } from './support/harness';

/** The conversation of one tool round trip: the model calls `noop`, then answers once it has the output. */
function roundTrip(request: ChatRequest['body']): Turn {
  return request.messages.at(-1)?.role === 'tool'
    ? { text: 'The tool answered.' }
    : { toolCalls: [{ name: 'noop', arguments: '{"n":1}' }] };
}

/**
 * What /v1/responses adds per tool round trip. Baseline: a client doing the round trip itself against the
 * same upstream (two streamed Chat Completions requests, the tool "run" locally). Subject: one
 * POST /v1/responses whose loop makes the same two upstream requests and runs the tool through the
 * dispatcher (policy, validation, audit), storing the response and its items.
 */
export async function run(): Promise<void> {
  const upstream = await FakeChatServer.start();
  upstream.responder = roundTrip;
  const app = await startBenchApp(
    { builtins: { bench: { enabled: true } }, engine: { upstream: { url: upstream.url } } },
    BENCH_PROVIDERS,
  );
  try {
    const chat = async (messages: Record<string, unknown>[]) => {
      const res = await fetch(`${upstream.url}/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: 'bench', stream: true, messages }),
      });
      if (!res.ok) throw new Error(`upstream answered ${res.status}`);
      return res.text();
    };
    const direct = async () => {
      const messages: Record<string, unknown>[] = [{ role: 'user', content: 'Run the tool' }];
      await chat(messages);
      messages.push(
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'noop', arguments: '{"n":1}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"ok":true}' },
      );
      await chat(messages);
    };
    const body = JSON.stringify({
      model: 'bench',
      input: 'Run the tool',
      tools: [{ type: 'function', name: 'noop' }],
    });
    const viaResponses = async () => {
      const res = await fetch(`${app.baseUrl}/v1/responses`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json' },
        body,
      });
      const answer = (await res.json()) as { status?: string; output?: { type: string }[] };
      if (answer.status !== 'completed' || answer.output?.[0]?.type !== 'mcp_call') {
        throw new Error(`unexpected response: ${JSON.stringify(answer).slice(0, 300)}`);
      }
    };
    const baseline = 'client loop, upstream directly (2 turns)';
    const subject = 'POST /v1/responses (2 turns + noop tool)';
    await measureLoop(baseline, direct, 1);
    await measureLoop(subject, viaResponses, 1);
    let best: [LoadResult, LoadResult] | undefined;
    for (let round = 0; round < 2; round++) {
      const a = await measureLoop(baseline, direct, 5);
      const b = await measureLoop(subject, viaResponses, 5);
      best = best ? [pick(best[0], a), pick(best[1], b)] : [a, b];
    }
    printComparison('Responses loop overhead per tool round trip', best!);
    const [a, b] = best!;
    console.log(`  added per round trip: p50 ${(b.p50 - a.p50).toFixed(1)} ms`);
  } finally {
    await app.close();
    await upstream.close();
  }
}

/** Runs `work` from `concurrency` callers for `seconds`, timing each call. */
async function measureLoop(
  label: string,
  work: () => Promise<void>,
  seconds: number,
  concurrency = 8,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const caller = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      try {
        await work();
        latencies.push(performance.now() - started);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  latencies.sort((x, y) => x - y);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    label,
    requestsPerSecond: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    max: latencies.at(-1) ?? 0,
    errors,
  };
}

function pick(a: LoadResult, b: LoadResult): LoadResult {
  return a.requestsPerSecond >= b.requestsPerSecond ? a : b;
}

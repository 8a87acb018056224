import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_PROVIDERS } from './support/bench-providers';
import { BenchApp, startBenchApp } from './support/harness';

const SAMPLES = 60;

/** The p-th percentile (0..1) of some durations in ms. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function timed(work: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const res = await work();
  await res.text();
  if (!res.ok) throw new Error(`Request failed: ${res.status}`);
  return performance.now() - started;
}

async function registerSandboxTool(app: BenchApp, name: string, entrypoint: string): Promise<void> {
  const headers = { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json' };
  const res = await fetch(`${app.baseUrl}/v1/tools`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name,
      description: `The ${name} benchmark tool.`,
      source: { type: 'sandbox', template: 'bench', entrypoint },
      schema: { type: 'object' },
    }),
  });
  const { id } = (await res.json()) as { id: string };
  for (const decision of ['reviewed', 'approved'])
    await fetch(`${app.baseUrl}/v1/tools/${id}/review`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ decision }),
    });
}

/**
 * A trivial sandbox call (the local runtime: prlimit + bubblewrap + /bin/cat echoing the arguments), start to
 * result, against a no-op built-in call on the same service; and /healthz while CPU-bound sandbox runs fill every
 * slot, against /healthz idle.
 */
export async function run(): Promise<void> {
  const template = mkdtempSync(join(tmpdir(), 'toolgate-bench-template-'));
  chmodSync(template, 0o755);
  writeFileSync(join(template, 'spin.py'), 'while True:\n    pass\n', { mode: 0o644 });
  const app = await startBenchApp(
    {
      builtins: { bench: { enabled: true } },
      sandbox: { max_concurrency: 2, limits: { wall_time: '4s' }, local: { templates: { bench: template } } },
    },
    BENCH_PROVIDERS,
  );
  try {
    await registerSandboxTool(app, 'sandbox-cat', '/bin/cat');
    await registerSandboxTool(app, 'sandbox-spin', '/usr/bin/python3 /template/spin.py');
    const headers = { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json' };
    const callTool = (name: string) => () =>
      fetch(`${app.baseUrl}/v1/tool_calls`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name, arguments: { n: 1 } }),
      });
    const health = () => fetch(`${app.baseUrl}/healthz`);
    const series = async (work: () => Promise<Response>) => {
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) times.push(await timed(work));
      return times;
    };

    await series(callTool('sandbox-cat')); // warm-up
    const noop = await series(callTool('noop'));
    const sandbox = await series(callTool('sandbox-cat'));
    console.log('\nSandbox call, start to result (local runtime, sequential)');
    console.log(
      `  no-op built-in:   p50 ${percentile(noop, 0.5).toFixed(1)} ms, p95 ${percentile(noop, 0.95).toFixed(1)} ms`,
    );
    console.log(
      `  sandbox /bin/cat: p50 ${percentile(sandbox, 0.5).toFixed(1)} ms, p95 ${percentile(sandbox, 0.95).toFixed(1)} ms`,
    );
    console.log(`  ratio p50: ${(percentile(sandbox, 0.5) / percentile(noop, 0.5)).toFixed(1)}x`);

    const idle = await series(health);
    const spinning = Promise.all([1, 2, 3, 4].map(() => callTool('sandbox-spin')().then((res) => res.text())));
    const busy = await series(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return health();
    });
    await spinning;
    console.log('\n/healthz while CPU-bound sandbox runs fill every slot');
    console.log(`  idle: p50 ${percentile(idle, 0.5).toFixed(1)} ms, max ${Math.max(...idle).toFixed(1)} ms`);
    console.log(`  busy: p50 ${percentile(busy, 0.5).toFixed(1)} ms, max ${Math.max(...busy).toFixed(1)} ms`);
    console.log(`  ratio p50: ${(percentile(busy, 0.5) / percentile(idle, 0.5)).toFixed(1)}x`);
  } finally {
    await app.close();
    rmSync(template, { recursive: true, force: true });
  }
}

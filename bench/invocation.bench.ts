import { BENCH_PROVIDERS } from './support/bench-providers';
import { compare, printComparison, startBenchApp } from './support/harness';

/** Invocation overhead: POST /v1/tool_calls on a no-op tool versus a bare authenticated route. */
export async function run(): Promise<void> {
  const app = await startBenchApp({ builtins: { bench: { enabled: true } } }, BENCH_PROVIDERS);
  try {
    const headers = { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json' };
    const result = await compare(
      { label: 'GET /v1/bench/ping (authenticated, no work)', url: `${app.baseUrl}/v1/bench/ping`, headers },
      {
        label: 'POST /v1/tool_calls (no-op tool)',
        url: `${app.baseUrl}/v1/tool_calls`,
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'noop', arguments: { n: 1 } }),
      },
    );
    printComparison('Tool invocation overhead', result);
  } finally {
    await app.close();
  }
}

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BENCH_PROVIDERS } from './support/bench-providers';
import { compare, printComparison, startBenchApp } from './support/harness';

/**
 * What tracing costs a tool call: POST /v1/tool_calls on a no-op tool with tracing off versus on (every span
 * recorded and exported in batches to a collector on loopback that discards them).
 */
export async function run(): Promise<void> {
  const collector = createServer((request, response) => {
    request.resume();
    request.once('end', () => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
  const base = { builtins: { bench: { enabled: true }, file_search: { enabled: false } } };
  const off = await startBenchApp(base, BENCH_PROVIDERS);
  const on = await startBenchApp(
    { ...base, observability: { tracing: { otlp_endpoint: endpoint, export_delay: '1s' } } },
    BENCH_PROVIDERS,
  );
  try {
    const toolCall = (app: typeof off, label: string) => ({
      label,
      url: `${app.baseUrl}/v1/tool_calls`,
      method: 'POST' as const,
      headers: {
        Authorization: `Bearer ${app.adminKey}`,
        'Content-Type': 'application/json',
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      },
      body: JSON.stringify({ name: 'noop', arguments: { n: 1 } }),
    });
    printComparison(
      'Tracing overhead per tool call',
      await compare(toolCall(off, 'POST /v1/tool_calls, tracing off'), toolCall(on, 'POST /v1/tool_calls, tracing on')),
    );
  } finally {
    await on.close();
    await off.close();
    collector.closeAllConnections();
    await new Promise((resolve) => collector.close(resolve));
  }
}

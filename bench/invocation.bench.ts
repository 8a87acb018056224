import { BENCH_PROVIDERS } from './support/bench-providers';
import { BenchApp, compare, printComparison, startBenchApp } from './support/harness';

/** Sets a built-in tool's governance through the catalog API, as an operator would. */
async function govern(app: BenchApp, name: string, changes: object): Promise<void> {
  const headers = { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json' };
  const list = (await (await fetch(`${app.baseUrl}/v1/tools?q=${name}&type=builtin`, { headers })).json()) as {
    data: { id: string; name: string }[];
  };
  const tool = list.data.find((entry) => entry.name === name);
  if (!tool) throw new Error(`Tool ${name} is not in the catalog`);
  const res = await fetch(`${app.baseUrl}/v1/tools/${tool.id}`, {
    method: 'PUT',
    headers,
    body: JSON.stringify(changes),
  });
  if (!res.ok) throw new Error(`Could not govern ${name}: ${res.status} ${await res.text()}`);
}

/**
 * Invocation overhead: POST /v1/tool_calls on a no-op tool versus a bare authenticated route; and the
 * governed path (audit basic + a rate limit, both in the database) versus an ungoverned call.
 */
export async function run(): Promise<void> {
  const app = await startBenchApp({ builtins: { bench: { enabled: true } } }, BENCH_PROVIDERS);
  try {
    await govern(app, 'noop', { audit_level: 'none' });
    await govern(app, 'noop_governed', { audit_level: 'basic', rate_limit: { per_minute: 1_000_000_000 } });
    const headers = { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json' };
    const toolCall = (name: string, label: string) => ({
      label,
      url: `${app.baseUrl}/v1/tool_calls`,
      method: 'POST' as const,
      headers,
      body: JSON.stringify({ name, arguments: { n: 1 } }),
    });
    const ungoverned = toolCall('noop', 'POST /v1/tool_calls (no-op, audit none)');
    printComparison(
      'Tool invocation overhead',
      await compare(
        { label: 'GET /v1/bench/ping (authenticated, no work)', url: `${app.baseUrl}/v1/bench/ping`, headers },
        ungoverned,
      ),
    );
    printComparison(
      'Governance overhead (audit basic + rate limit)',
      await compare(ungoverned, toolCall('noop_governed', 'POST /v1/tool_calls (no-op, audit basic + limit)')),
    );
  } finally {
    await app.close();
  }
}

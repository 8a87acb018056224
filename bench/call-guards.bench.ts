import { SystemClock } from '../src/common/clock';
import type { AppConfig } from '../src/config/app-config';
import type { GuardedCall } from '../src/tools/invocation/call-guard';
import type { ResolvedTool } from '../src/tools/invocation/tool-policy';
import { compileCondition } from '../src/tools/guards/policies/policy-condition';
import { ChainMemory } from '../src/tools/guards/secrets/chain-memory';
import { SecretGuard } from '../src/tools/guards/secrets/secret-guard';
import { StoredSecretIndex } from '../src/tools/guards/secrets/stored-secret-index';
import type { StoredSecrets } from '../src/tools/guards/secrets/stored-secrets';
import { benignCalls } from './fixtures/call-guards/benign-calls';
import { exfiltrationAttempts, storedCredentials } from './fixtures/call-guards/exfiltration-attempts';
import { FixtureCall, PROSE } from './fixtures/call-guards/fixture-values';

type Modes = Pick<
  AppConfig['catalog'],
  'argument_scan' | 'argument_scan_stored' | 'result_secret_scan' | 'chained_exfiltration'
>;

const DEFAULTS: Modes = {
  argument_scan: 'flag',
  argument_scan_stored: 'block',
  result_secret_scan: 'flag',
  chained_exfiltration: 'flag',
};
const STRICT: Modes = {
  argument_scan: 'block',
  argument_scan_stored: 'block',
  result_secret_scan: 'flag',
  chained_exfiltration: 'block',
};

/** The real SecretGuard, with the tenant's stored credentials indexed once and chains in memory. */
function guardWith(modes: Modes, chains: ChainMemory): SecretGuard {
  const config = { catalog: { ...modes, secret_scan_max_chars: 1_048_576 } } as AppConfig;
  const index = new StoredSecretIndex(
    'stored_credential',
    storedCredentials().map(({ key, value }) => ({ name: `credential:${key}`, value })),
  );
  const stored = { indexOf: () => Promise.resolve(index) } as unknown as StoredSecrets;
  return new SecretGuard(config, stored, chains);
}

function guardedCall(call: FixtureCall, chain: string): GuardedCall {
  const tool = {
    name: call.tool,
    definition: { name: call.tool, description: '', parameters: {} },
    source: { type: 'mcp' },
    origin: 'bench',
    permissions: call.permissions,
  } as ResolvedTool;
  return {
    identity: { tenantId: 'acme', role: 'member', subject: 'key_bench', method: 'api_key' },
    tool,
    arguments: call.arguments,
    chain,
  };
}

interface Outcome {
  blocked: boolean;
  flagged: boolean;
}

async function judge(modes: Modes, calls: FixtureCall[]): Promise<Outcome[]> {
  const chains = new ChainMemory(new SystemClock());
  const guard = guardWith(modes, chains);
  const outcomes: Outcome[] = [];
  for (const [i, call] of calls.entries()) {
    const chain = `bench:${i}`;
    if (call.earlierSensitiveResult) chains.remember(chain, 'result:vault-read', call.earlierSensitiveResult);
    const verdict = await guard.checkArguments(guardedCall(call, chain));
    outcomes.push({ blocked: verdict.blocking !== undefined, flagged: verdict.findings.length > 0 });
  }
  return outcomes;
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`.padStart(7);

function byFamily(calls: FixtureCall[], outcomes: Outcome[][]): Map<string, number[]> {
  const families = new Map<string, number[]>();
  calls.forEach((call, i) => {
    const row = families.get(call.family) ?? [0, ...outcomes.map(() => 0), 0];
    row[0] += 1;
    outcomes.forEach((list, m) => (row[m + 1] += list[i].blocked ? 1 : 0));
    row[outcomes.length + 1] += outcomes[0][i].flagged ? 1 : 0;
    families.set(call.family, row);
  });
  return families;
}

function printFamilies(title: string, calls: FixtureCall[], defaults: Outcome[], strict: Outcome[]): void {
  console.log(
    `\n  ${title.padEnd(44)} ${'calls'.padStart(5)} ${'blocked'.padStart(8)} ${'blocked'.padStart(8)} ${'caught'.padStart(8)}`,
  );
  console.log(
    `  ${''.padEnd(44)} ${''.padStart(5)} ${'default'.padStart(8)} ${'strict'.padStart(8)} ${'default'.padStart(8)}`,
  );
  const rows = [...byFamily(calls, [defaults, strict]).entries()];
  const total = [0, 0, 0, 0];
  for (const [family, [count, blockedDefault, blockedStrict, caught]] of rows) {
    total[0] += count;
    total[1] += blockedDefault;
    total[2] += blockedStrict;
    total[3] += caught;
    console.log(
      `  ${family.padEnd(44)} ${String(count).padStart(5)} ${percent(blockedDefault, count)} ${percent(blockedStrict, count)} ${percent(caught, count)}`,
    );
  }
  console.log(
    `  ${'all'.padEnd(44)} ${String(total[0]).padStart(5)} ${percent(total[1], total[0])} ${percent(total[2], total[0])} ${percent(total[3], total[0])}`,
  );
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function latencies(work: () => unknown | Promise<unknown>, runs: number): Promise<number[]> {
  for (let i = 0; i < 50; i++) await work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

/**
 * `npm run bench call-guards`: efficacy of call-time secret scanning on the fixture of bench/fixtures/call-guards
 * (benign agent calls and exfiltration attempts, by family), at the catalog defaults (`argument_scan: flag`,
 * stored values and chained leaks per `argument_scan_stored: block` / `chained_exfiltration: flag`) and strict
 * (`argument_scan: block`, `chained_exfiltration: block`); then the time added to a call with a 64 KB argument.
 */
export async function run(): Promise<void> {
  const benign = benignCalls();
  const attacks = exfiltrationAttempts();
  console.log(`\nCall-time guards: ${benign.length} benign calls, ${attacks.length} exfiltration attempts`);
  const attackDefault = await judge(DEFAULTS, attacks);
  const attackStrict = await judge(STRICT, attacks);
  printFamilies('exfiltration attempts', attacks, attackDefault, attackStrict);
  const benignDefault = await judge(DEFAULTS, benign);
  const benignStrict = await judge(STRICT, benign);
  printFamilies('benign calls (blocked = false block)', benign, benignDefault, benignStrict);

  const body = PROSE.join(' ')
    .repeat(Math.ceil(65_536 / PROSE.join(' ').length))
    .slice(0, 65_536);
  const large: FixtureCall = {
    family: '64 KB',
    tool: 'send_email',
    permissions: ['network_external'],
    arguments: { to: 'a@acme.com', subject: 'report', body },
  };
  const chains = new ChainMemory(new SystemClock());
  chains.remember('bench:large', 'result:vault-read', 'vault://kv/prod/0#abcdefghij0123456789');
  const guard = guardWith(DEFAULTS, chains);
  const call = guardedCall(large, 'bench:large');
  const baseline = await latencies(() => JSON.parse(JSON.stringify(large.arguments)), 500);
  const scan = await latencies(() => guard.checkArguments(call), 500);
  const rules = [
    '!arguments.to.endsWith("@acme.com")',
    '"network_external" in tool.permissions && hosts(arguments).exists(h, !(h in ["api.acme.com"]))',
    'identity.profile != "ops"',
  ].map(compileCondition);
  const activation = {
    tool: { name: 'send_email', permissions: ['network_external'], tags: [] },
    arguments: large.arguments,
    identity: { profile: '' },
    request: {},
  };
  const policies = await latencies(() => rules.forEach((rule) => rule(activation)), 500);
  console.log('\n  added latency per call, 64 KB argument         p50 ms    p99 ms   p50 vs JSON round trip');
  for (const [label, times] of [
    ['JSON parse+stringify of the arguments (baseline)', baseline],
    ['secret scan (formats, 20 stored, 1 chained value)', scan],
    ['the README policies (3 CEL rules)', policies],
  ] as const) {
    console.log(
      `  ${label.padEnd(48)} ${quantile(times, 0.5).toFixed(3).padStart(8)} ${quantile(times, 0.99).toFixed(3).padStart(9)} ${(quantile(times, 0.5) / quantile(baseline, 0.5)).toFixed(1).padStart(8)}x`,
    );
  }
}

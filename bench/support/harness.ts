import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createToolgate, Toolgate } from '../../src/app.factory';
import { randomToken } from '../../src/common/ids';
import { loadConfig } from '../../src/config/config.loader';
import type { ConfigInput } from '../../src/config/config.schema';
import type { ProviderModule } from '../../src/tools/builtins/builtin-modules';

export interface BenchApp {
  toolgate: Toolgate;
  baseUrl: string;
  adminKey: string;
  close(): Promise<void>;
}

/** The database a benchmark runs on: a PostgreSQL server (with pgvector), or the embedded PGlite. */
export type BenchEngine = 'postgres' | 'pglite';
export const BENCH_ENGINES: BenchEngine[] = ['postgres', 'pglite'];

/** The PostgreSQL server benchmarks create their databases on (as the e2e suites do). */
const SERVER_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let engine: BenchEngine = 'pglite';

/** Every app started from now on runs on `chosen`. */
export function useEngine(chosen: BenchEngine): void {
  engine = chosen;
}

/** How the current engine is named in printed results. */
export function engineName(): string {
  return engine === 'postgres' ? 'PostgreSQL + pgvector' : 'embedded PGlite';
}

/** A database of its own for one benchmark: a fresh database on the server, dropped at the end. */
export interface BenchDatabase {
  url?: string;
  drop(): Promise<void>;
}

export async function createBenchDatabase(): Promise<BenchDatabase> {
  if (engine === 'pglite') return { drop: async () => undefined };
  const name = `toolgate_bench_${randomToken(12).toLowerCase()}`;
  await serverQuery(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => serverQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function serverQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Credentials need a key on an external database; a benchmark makes one up. */
const BENCH_ENCRYPTION_KEY = randomBytes(32).toString('base64');

/** Starts the service for a benchmark on the current engine, in a database of its own. */
export async function startBenchApp(config: ConfigInput = {}, providers: ProviderModule[] = []): Promise<BenchApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-bench-'));
  const database = await createBenchDatabase();
  const adminKey = `tg_bench_${randomToken(24)}`;
  const overrides = {
    ...config,
    // The sentence encoder reads every new definition once, in a thread of its own: at start-up that is every
    // built-in tool, work that would compete with the calls measured here. It never runs on a call's path.
    catalog: { ...config.catalog, review: { encoder: false, ...config.catalog?.review } },
    server: { host: '127.0.0.1' },
    data_dir: dataDir,
    auth: { admin_api_key: adminKey },
    logging: { level: 'silent' },
    ...(database.url && {
      database: { url: database.url, ...config.database },
      secrets: { encryption_key: BENCH_ENCRYPTION_KEY, ...config.secrets },
    }),
  };
  // Otherwise the environment applies as for `npm start` (TOOLGATE_*, ...); the engine is the benchmark's.
  const env = { ...process.env, DATABASE_URL: undefined };
  const toolgate = await createToolgate(loadConfig(env, overrides), { providers });
  await toolgate.app.listen(0, '127.0.0.1');
  const { port } = (toolgate.app.getHttpServer() as Server).address() as AddressInfo;
  return {
    toolgate,
    baseUrl: `http://127.0.0.1:${port}`,
    adminKey,
    close: async () => {
      await toolgate.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface LoadResult {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** The slowest request, in ms. */
  max: number;
  errors: number;
}

export interface LoadTarget {
  label: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** Load from a worker thread, so the load generator does not share the server's event loop. */
export async function measure(target: LoadTarget, seconds: number, connections = 16): Promise<LoadResult> {
  const result = await autocannon({
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers,
    body: target.body,
    connections,
    duration: seconds,
    workers: 1,
  });
  return {
    label: target.label,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors + result.non2xx,
  };
}

/** Runs baseline and subject alternately (warm-up first), keeping each one's best round. */
export async function compare(
  baseline: LoadTarget,
  subject: LoadTarget,
  rounds = 2,
  seconds = 5,
): Promise<[LoadResult, LoadResult]> {
  await measure(baseline, 1);
  await measure(subject, 1);
  let best: [LoadResult, LoadResult] | undefined;
  for (let round = 0; round < rounds; round++) {
    const a = await measure(baseline, seconds);
    const b = await measure(subject, seconds);
    best = best ? [pick(best[0], a), pick(best[1], b)] : [a, b];
  }
  return best!;
}

function pick(a: LoadResult, b: LoadResult): LoadResult {
  return a.requestsPerSecond >= b.requestsPerSecond ? a : b;
}

export function printComparison(title: string, [baseline, subject]: [LoadResult, LoadResult]): void {
  const row = (r: LoadResult) =>
    `  ${r.label.padEnd(44)} ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(1).padStart(6)} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms   errors ${r.errors}`;
  console.log(`\n${title} (${engineName()})`);
  console.log(row(baseline));
  console.log(row(subject));
  console.log(
    `  ratio (subject / baseline): throughput ${(subject.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}x, ` +
      `p50 ${(subject.p50 / baseline.p50).toFixed(2)}x, p99 ${(subject.p99 / baseline.p99).toFixed(2)}x`,
  );
}

/**
 * Registers an MCP source whose tools are approved by default and waits until `tool` is approved (a trusted
 * server's new tool waits for the sentence encoder's reading first); returns the tool's id.
 */
export async function registerApprovedSource(
  baseUrl: string,
  adminKey: string,
  source: { name: string; url: string; [option: string]: unknown },
  tool: string,
): Promise<string> {
  const headers = { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' };
  const registered = await fetch(`${baseUrl}/v1/tools/sources/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ default_security_status: 'approved', default_audit_level: 'basic', ...source }),
  });
  if (!registered.ok) throw new Error(`Could not register the ${source.name} source: ${await registered.text()}`);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const listed = (await (await fetch(`${baseUrl}/v1/tools?q=${encodeURIComponent(tool)}`, { headers })).json()) as {
      data: { id: string; name: string; security_status: string }[];
    };
    const entry = listed.data.find((candidate) => candidate.name === tool);
    if (entry?.security_status === 'approved') return entry.id;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${tool} was not approved within 120 s`);
}

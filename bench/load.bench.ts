import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { randomToken } from '../src/common/ids';
import { createBenchDatabase, engineName, LoadResult, measure, registerApprovedSource } from './support/harness';
import { startUpstream } from './support/mcp-upstream';

const SECONDS = 60;
/**
 * Load before the measured run. Under this load V8 grows each replica's heap for about 30 s (from roughly 300 to
 * 600 MB committed) and then holds it; RSS "at start" is taken once that has happened, so that growth during the
 * run means memory still being taken, not the heap reaching its working size. RSS before any load is printed too.
 */
const WARM_UP_SECONDS = 30;
/** How often each replica's RSS is sampled during the measured run. */
const SAMPLE_EVERY_MS = 10_000;
const CALLERS = 50;
const REPLICAS = 2;
const MAIN = join(__dirname, '../src/main.js');

/**
 * Sustained load on the governed path: two replicas (separate processes, as deployed) sharing one PostgreSQL,
 * 50 callers spread over both for 60 s, each calling an upstream MCP tool under audit `basic` and a rate limit
 * (so every call takes a slot, writes its `started` record and its outcome). Prints calls/s and p99 per replica,
 * errors, and each replica's RSS before any load, after the warm-up, every 10 s and at the end. PGlite belongs to
 * one process: skipped there.
 */
export async function run(): Promise<void> {
  if (engineName() === 'embedded PGlite') {
    console.log('\nTwo-replica load run: skipped on the embedded database (one process owns it)');
    return;
  }
  const upstream = await startUpstream();
  const database = await createBenchDatabase();
  const adminKey = `tg_bench_${randomToken(24)}`;
  const replicas: Replica[] = [];
  try {
    for (let i = 0; i < REPLICAS; i++) replicas.push(await startReplica(i, database.url!, adminKey));
    const headers = { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' };
    const toolId = await registerApprovedSource(
      replicas[0].url,
      adminKey,
      { name: 'upstream', url: upstream.url },
      'upstream-echo',
    );
    const governed = await fetch(`${replicas[0].url}/v1/tools/${toolId}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ rate_limit: { per_minute: 1_000_000_000 } }),
    });
    if (!governed.ok) throw new Error(`Could not set the rate limit: ${await governed.text()}`);
    const target = (replica: Replica, seconds: number) =>
      measure(
        {
          label: `replica ${replica.index + 1} POST /v1/tool_calls (audit basic + limit)`,
          url: `${replica.url}/v1/tool_calls`,
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'upstream-echo', arguments: { text: 'hello' } }),
        },
        seconds,
        CALLERS / REPLICAS,
      );
    const rssIdle = replicas.map(rssMb);
    await Promise.all(replicas.map((replica) => target(replica, WARM_UP_SECONDS)));
    const rssStart = replicas.map(rssMb);
    const heapStart = await Promise.all(replicas.map(heapUsedMb));
    const samples: number[][] = [];
    const sampler = setInterval(() => samples.push(replicas.map(rssMb)), SAMPLE_EVERY_MS);
    const results = await Promise.all(replicas.map((replica) => target(replica, SECONDS))).finally(() =>
      clearInterval(sampler),
    );
    const rssEnd = replicas.map(rssMb);
    const heapEnd = await Promise.all(replicas.map(heapUsedMb));
    print(results, rssStart, rssEnd);
    replicas.forEach((replica, i) =>
      console.log(
        `  replica ${replica.index + 1} RSS before any load ${rssIdle[i].toFixed(0)} MB, after ${WARM_UP_SECONDS} s of ` +
          `load ${rssStart[i].toFixed(0)} MB, then every ${SAMPLE_EVERY_MS / 1000} s: ` +
          `${samples.map((sample) => sample[i].toFixed(0)).join(', ')} MB`,
      ),
    );
    // Whether RSS growth is live JavaScript objects (a leak would show here) or memory the process keeps.
    replicas.forEach((replica, i) =>
      console.log(
        `  replica ${replica.index + 1} JS heap used ${heapStart[i].toFixed(0)} -> ${heapEnd[i].toFixed(0)} MB (V8's own count)`,
      ),
    );
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await database.drop();
    await upstream.stop();
  }
}

function print(results: LoadResult[], rssStart: number[], rssEnd: number[]): void {
  console.log(`\nTwo-replica load run (${engineName()}): ${CALLERS} callers for ${SECONDS} s, governed MCP tool call`);
  results.forEach((r, i) => {
    const growth = ((rssEnd[i] - rssStart[i]) / rssStart[i]) * 100;
    console.log(
      `  ${r.label.padEnd(52)} ${r.requestsPerSecond.toFixed(0).padStart(6)} calls/s   p50 ${r.p50.toFixed(1).padStart(6)} ms   ` +
        `p99 ${r.p99.toFixed(1).padStart(6)} ms   errors ${r.errors}   RSS ${rssStart[i].toFixed(0)} -> ${rssEnd[i].toFixed(0)} MB (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}%)`,
    );
  });
  const total = results.reduce((sum, r) => sum + r.requestsPerSecond, 0);
  const errors = results.reduce((sum, r) => sum + r.errors, 0);
  console.log(`  together: ${total.toFixed(0)} calls/s, ${errors} errors`);
}

interface Replica {
  index: number;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** One replica as `npm start` runs it, on the shared database; ready once /readyz answers. */
async function startReplica(index: number, databaseUrl: string, adminKey: string): Promise<Replica> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_API_KEY: adminKey,
      LOG_LEVEL: 'warn',
      TOOLGATE_SECRETS__ENCRYPTION_KEY: ENCRYPTION_KEY,
      TOOLGATE_BUILTINS__FILE_SEARCH__ENABLED: 'false',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`replica ${index + 1} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`replica ${index + 1} not ready within 60 s`);
    const ready = await fetch(`${url}/readyz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    index,
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const ENCRYPTION_KEY = randomBytes(32).toString('base64');

/** A replica's resident memory, from /proc, in MB. */
function rssMb(replica: Replica): number {
  const status = readFileSync(`/proc/${replica.child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
}

/** A replica's live JavaScript heap, from its own /metrics, in MB. */
async function heapUsedMb(replica: Replica): Promise<number> {
  const metrics = await (await fetch(`${replica.url}/metrics`)).text();
  return Number(/^(?:toolgate_)?nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(metrics)?.[1] ?? 0) / 1024 / 1024;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

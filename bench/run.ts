import 'reflect-metadata';
import { run as callGuards } from './call-guards.bench';
import { run as fileSearch } from './file-search.bench';
import { run as hostileFiles } from './hostile-files.bench';
import { run as hostileRelays } from './hostile-relays.bench';
import { run as hostileSweep } from './hostile-sweep.bench';
import { run as invocation } from './invocation.bench';
import { run as load } from './load.bench';
import { run as mcp } from './mcp.bench';
import { run as outputScan } from './output-scan.bench';
import { run as redaction } from './redaction.bench';
import { run as sandbox } from './sandbox.bench';
import { run as toolSearch } from './tool-search.bench';
import { run as tracing } from './tracing.bench';
import { run as responses } from './responses.bench';
import { run as reviewHeldout } from './review-heldout.bench';
import { run as reviewBlind } from './review-blind.bench';
import {
  runFamilies as reviewEncoderFamilies,
  run as reviewEncoder,
  runWriters as reviewEncoderWriters,
} from './review-encoder.bench';
import { run as reviewJudge } from './review-judge.bench';
import { runFamilies as reviewWriterFamilies, run as reviewWriters } from './review-writers.bench';
import { run as untrustedInput } from './untrusted-input.bench';
import { BENCH_ENGINES, BenchEngine, useEngine } from './support/harness';

/**
 * `npm run bench [name...] [--engine=postgres|pglite]`: every benchmark, or the named ones, each printing ratios
 * against its own baseline, on PostgreSQL (a fresh database per benchmark on BENCH_DATABASE_URL's server, default
 * the local one) and then on the embedded PGlite, or on the one engine named.
 */
const BENCHMARKS: Record<string, () => Promise<void>> = {
  invocation,
  mcp,
  load,
  'file-search': fileSearch,
  'hostile-files': hostileFiles,
  'hostile-relays': hostileRelays,
  'hostile-sweep': hostileSweep,
  redaction,
  'tool-search': toolSearch,
  responses,
  'review-heldout': reviewHeldout,
  'review-blind': reviewBlind,
  'review-encoder': reviewEncoder,
  'review-encoder-writers': reviewEncoderWriters,
  'review-encoder-families': reviewEncoderFamilies,
  'review-judge': reviewJudge,
  'review-writers': reviewWriters,
  'review-writer-families': reviewWriterFamilies,
  'untrusted-input': untrustedInput,
  'output-scan': outputScan,
  tracing,
  sandbox,
  'call-guards': callGuards,
};

/** Benchmarks that start no service and touch no database: run once, not once per engine. */
const WITHOUT_DATABASE = new Set([
  'call-guards',
  'output-scan',
  'redaction',
  'review-heldout',
  'review-blind',
  'review-encoder',
  'review-encoder-writers',
  'review-encoder-families',
  'review-judge',
  'review-writers',
  'review-writer-families',
  'untrusted-input',
]);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const engineArg = args.find((arg) => arg.startsWith('--engine='))?.slice('--engine='.length);
  if (engineArg !== undefined && !BENCH_ENGINES.includes(engineArg as BenchEngine))
    throw new Error(`Unknown engine ${engineArg}; known: ${BENCH_ENGINES.join(', ')}`);
  const wanted = args.filter((arg) => !arg.startsWith('--'));
  const unknown = wanted.filter((name) => !(name in BENCHMARKS));
  if (unknown.length)
    throw new Error(`Unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
  const engines = engineArg ? [engineArg as BenchEngine] : BENCH_ENGINES;
  for (const engine of engines) {
    useEngine(engine);
    console.log(`\n=== ${engine} ===`);
    for (const name of wanted.length ? wanted : Object.keys(BENCHMARKS))
      if (engine === engines[0] || !WITHOUT_DATABASE.has(name)) await BENCHMARKS[name]();
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error.message);
    process.exit(1);
  },
);

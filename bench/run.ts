import 'reflect-metadata';
import { run as callGuards } from './call-guards.bench';
import { run as fileSearch } from './file-search.bench';
import { run as hostileFiles } from './hostile-files.bench';
import { run as hostileRelays } from './hostile-relays.bench';
import { run as hostileSweep } from './hostile-sweep.bench';
import { run as invocation } from './invocation.bench';
import { run as mcp } from './mcp.bench';
import { run as outputScan } from './output-scan.bench';
import { run as redaction } from './redaction.bench';
import { run as toolSearch } from './tool-search.bench';
import { run as responses } from './responses.bench';
import { run as reviewHeldout } from './review-heldout.bench';
import { run as reviewJudge } from './review-judge.bench';
import { run as untrustedInput } from './untrusted-input.bench';

/** `npm run bench [name...]`: every benchmark, or the named ones, each printing ratios against its own baseline. */
const BENCHMARKS: Record<string, () => Promise<void>> = {
  invocation,
  mcp,
  'file-search': fileSearch,
  'hostile-files': hostileFiles,
  'hostile-relays': hostileRelays,
  'hostile-sweep': hostileSweep,
  redaction,
  'tool-search': toolSearch,
  responses,
  'review-heldout': reviewHeldout,
  'review-judge': reviewJudge,
  'untrusted-input': untrustedInput,
  'output-scan': outputScan,
  'call-guards': callGuards,
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(name in BENCHMARKS));
  if (unknown.length)
    throw new Error(`Unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
  for (const name of wanted.length ? wanted : Object.keys(BENCHMARKS)) await BENCHMARKS[name]();
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error.message);
    process.exit(1);
  },
);

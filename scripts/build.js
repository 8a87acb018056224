// Compiles the service into dist/ (tsc -p tsconfig.build.json). With --if-stale it compiles only when a
// source file, migration or compiler setting is newer than the last successful build, so `npm start`
// starts at once on an unchanged checkout.
const { execFileSync } = require('node:child_process');
const { existsSync, lstatSync, readdirSync, utimesSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const INPUTS = ['src', 'migrations', 'bench', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
/** Written after a successful build, dated when that build started (files saved during it count as newer). */
const STAMP = join(ROOT, 'dist', '.build-stamp');
const ENTRY = join(ROOT, 'dist', 'src', 'main.js');
/** The source tree is shallow; a deeper one means a link loop or a stray checkout, not sources. */
const MAX_DEPTH = 16;

function newestInput() {
  let newest = 0;
  const visit = (path, depth) => {
    if (!existsSync(path)) return;
    const stats = lstatSync(path);
    newest = Math.max(newest, stats.mtimeMs);
    if (stats.isDirectory() && depth < MAX_DEPTH) {
      for (const entry of readdirSync(path)) visit(join(path, entry), depth + 1);
    }
  };
  for (const input of INPUTS) visit(join(ROOT, input), 0);
  return newest;
}

function isCurrent() {
  return existsSync(STAMP) && existsSync(ENTRY) && lstatSync(STAMP).mtimeMs >= newestInput();
}

function build() {
  const started = new Date();
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  writeFileSync(STAMP, '');
  utimesSync(STAMP, started, started);
}

if (process.argv.includes('--if-stale') && isCurrent()) process.exit(0);
process.stderr.write('Building dist/ (tsc -p tsconfig.build.json)\n');
try {
  build();
} catch (error) {
  // tsc has printed its diagnostics already; anything else (no TypeScript installed) has not.
  if (error.code === 'MODULE_NOT_FOUND') process.stderr.write(`${error.message}\nRun npm ci first.\n`);
  process.exit(1);
}

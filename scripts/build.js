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

/** Development dependencies that are not installed: `npm install --omit=dev` leaves all of them out. */
function missingDevDependencies() {
  const { devDependencies = {} } = require(join(ROOT, 'package.json'));
  return Object.keys(devDependencies).filter((name) => !existsSync(join(ROOT, 'node_modules', name, 'package.json')));
}

const HOW_TO_BUILD =
  'Build with the development dependencies installed, then drop them:\n' +
  '  npm install && npm run build\n' +
  '  npm install --omit=dev\n' +
  '  npm start\n';

function build() {
  const started = new Date();
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  writeFileSync(STAMP, '');
  utimesSync(STAMP, started, started);
}

const ifStale = process.argv.includes('--if-stale');
if (ifStale && isCurrent()) process.exit(0);
// Without them tsc (which a production dependency may still bring) fails on every missing type definition.
const missing = missingDevDependencies();
if (missing.length > 0) {
  const state = !ifStale
    ? ''
    : existsSync(ENTRY)
      ? 'dist/ is older than the sources, and '
      : 'dist/ is not built, and ';
  process.stderr.write(
    `${state}${state ? 'building' : 'Building'} dist/ needs the development dependencies, which are not installed ` +
      `(${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}; npm install --omit=dev leaves them out).\n` +
      HOW_TO_BUILD,
  );
  process.exit(1);
}
process.stderr.write('Building dist/ (tsc -p tsconfig.build.json)\n');
try {
  build();
} catch (error) {
  // tsc has printed its diagnostics already; anything else has not.
  if (error.code === 'MODULE_NOT_FOUND') process.stderr.write(`${error.message}\n${HOW_TO_BUILD}`);
  process.exit(1);
}

import { extname, join } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Node cannot load .ts in a worker by itself, so from sources the thread compiles it with @swc/core (a
 * development dependency, never needed from dist) through a require hook before loading the entry.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.compiler) {
  const Module = require('node:module');
  const { readFileSync } = require('node:fs');
  const { transformSync } = require(workerData.compiler);
  Module._extensions['.ts'] = (module, filename) => {
    const { code } = transformSync(readFileSync(filename, 'utf8'), {
      filename,
      module: { type: 'commonjs' },
      jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    });
    module._compile(code, filename);
  };
}
require(workerData.entry);
`;

/**
 * A worker thread running the module `name` of the folder `dir` (pass `__dirname`, and `__filename` as `caller`):
 * compiled .js in production, .ts when running from sources (tests), like the caller itself.
 */
export function startWorker(dir: string, name: string, caller: string, resourceLimits: ResourceLimits): Worker {
  const entry = join(dir, `${name}${extname(caller)}`);
  const compiler = entry.endsWith('.ts') ? require.resolve('@swc/core') : undefined;
  return new Worker(BOOTSTRAP, { eval: true, workerData: { entry, compiler }, resourceLimits });
}

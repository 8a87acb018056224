import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './support/server-process';

const run = promisify(execFile);

/** The runner's environment without what Jest sets for its own workers or any Node flags passed down. */
function plainEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(JEST_WORKER_ID|NODE_OPTIONS)$/.test(name)) env[name] = value;
  }
  return env;
}

/** Runs one test of one file with plain Jest (no --experimental-vm-modules); answers its output. */
async function plainJest(file: string, test: string): Promise<string> {
  const jest = join(ROOT, 'node_modules/jest/bin/jest.js');
  const { stdout, stderr } = await run(process.execPath, [jest, file, '-t', test], {
    cwd: ROOT,
    env: plainEnv(),
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout: string; stderr: string }) => {
    throw new Error(`plain jest failed:\n${error.stdout}\n${error.stderr}`);
  });
  return `${stdout}\n${stderr}`;
}

/**
 * `npx jest <file>` is how most people run one test file; it runs Jest without --experimental-vm-modules, which
 * the embedded database's and the OTLP exporter's dynamic imports of Node's modules needed before: such suites
 * crashed at their first start, or exported no span.
 */
describe('running one test file with plain jest', () => {
  it('runs a suite on the embedded database without --experimental-vm-modules', async () => {
    const output = await plainJest('test/tenant-settings.e2e-spec.ts', 'on pglite answers the defaults');
    expect(output).not.toContain('ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG');
    expect(output).toMatch(/Tests:\s+\d+ skipped, 1 passed, \d+ total/);
  }, 300_000);

  it('runs a tracing suite, whose spans reach the OTLP receiver, without --experimental-vm-modules', async () => {
    const output = await plainJest('test/tracing.e2e-spec.ts', 'traces /v1/tool_calls as request span');
    expect(output).toMatch(/Tests:\s+\d+ skipped, 1 passed, \d+ total/);
  }, 300_000);
});

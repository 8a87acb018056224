import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = resolve(__dirname, '../..');
export const MAIN = join(ROOT, 'dist/src/main.js');
export const MIGRATION_CLI = join(ROOT, 'dist/src/database/migration-cli.js');

const BUILD_LOCK = join(tmpdir(), 'toolgate-test-build.lock');
const STALE_LOCK_MS = 120_000;
/** Written after a successful build, dated when that build started. */
const BUILD_STAMP = join(ROOT, 'dist/.e2e-build-stamp');
const BUILD_INPUTS = ['src', 'migrations', 'bench', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

/**
 * Compiles the service into dist/ exactly as `npm run build` does, unless no input changed since the
 * last successful build. Test files run in parallel workers, so builds are serialised with a lock
 * directory: two compilers writing the same files would let a child process load a half-written module.
 */
export async function buildService(): Promise<void> {
  await acquireLock();
  try {
    if (existsSync(BUILD_STAMP) && statSync(BUILD_STAMP).mtimeMs >= newestInput()) return;
    const started = new Date();
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT });
    writeFileSync(BUILD_STAMP, '');
    utimesSync(BUILD_STAMP, started, started);
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`Build failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

function newestInput(): number {
  let newest = 0;
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    const stats = statSync(path);
    newest = Math.max(newest, stats.mtimeMs);
    if (stats.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
  };
  for (const input of BUILD_INPUTS) visit(join(ROOT, input));
  return newest;
}

async function acquireLock(): Promise<void> {
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      return;
    } catch {
      try {
        const stale = Date.now() - statSync(BUILD_LOCK).mtimeMs > STALE_LOCK_MS;
        if (stale) rmSync(BUILD_LOCK, { recursive: true, force: true });
      } catch {
        // Removed by its owner in the meantime: try again.
      }
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}

/** A port that was free a moment ago (the server is given a fixed port, as an operator would). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/** The test runner's environment without anything that configures Toolgate, so each test sets its own. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const configuring = /^(TOOLGATE_|PORT$|HOST$|DATABASE_URL$|ADMIN_API_KEY$|LOG_LEVEL$)/;
  for (const [name, value] of Object.entries(process.env)) if (!configuring.test(name)) env[name] = value;
  return { ...env, ...extra };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child process whose output is collected and can be waited on. */
export class ChildOutput {
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  private waiters: (() => void)[] = [];

  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.append('stdout', chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => this.append('stderr', chunk));
    this.exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
    void this.exited.then(() => this.notify());
  }

  /** Resolves with the first match of `pattern` on stdout (or stderr); fails if the process exits first. */
  async waitFor(pattern: RegExp, stream: 'stdout' | 'stderr' = 'stdout'): Promise<RegExpMatchArray> {
    for (;;) {
      const match = this[stream].match(pattern);
      if (match) return match;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`Process exited before printing ${pattern}:\n${this.stdout}\n${this.stderr}`);
      }
      await new Promise<void>((done) => this.waiters.push(done));
    }
  }

  private append(stream: 'stdout' | 'stderr', chunk: string): void {
    this[stream] += chunk;
    this.notify();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

export function runNode(script: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): ChildOutput {
  return new ChildOutput(spawn(process.execPath, [script, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] }));
}

const LISTENING = /Toolgate listening on (http:\/\/\S+) \(/;
const ADMIN_KEY = /Admin API key \(shown once[^\n]*\n\s+(tg_\S+)\n/;

/** The keys of every admin key banner in some output. */
export function adminKeysIn(output: string): string[] {
  return [...output.matchAll(new RegExp(ADMIN_KEY, 'g'))].map((match) => match[1]);
}

/** The real server (`node dist/src/main.js`), as an operator starts it. */
export class ServerProcess {
  private constructor(
    readonly output: ChildOutput,
    readonly url: string,
  ) {}

  /** `script` is another copy of dist/src/main.js, e.g. one installed elsewhere. */
  static async start(env: Record<string, string>, cwd: string, script = MAIN): Promise<ServerProcess> {
    const output = runNode(script, [], cleanEnv(env), cwd);
    try {
      const [, url] = await output.waitFor(LISTENING);
      return new ServerProcess(output, url);
    } catch (error) {
      output.child.kill('SIGKILL');
      throw error;
    }
  }

  /** Waits for the one-time admin key banner (on stderr, after the URL, possibly in a later chunk). */
  async adminKeyBanner(): Promise<string> {
    const [, key] = await this.output.waitFor(ADMIN_KEY, 'stderr');
    return key;
  }

  /** Every admin key banner printed; complete only once the process has exited. */
  get printedAdminKeys(): string[] {
    return adminKeysIn(this.output.stderr);
  }

  async stop(): Promise<Exit> {
    if (this.output.child.exitCode === null && this.output.child.signalCode === null) this.output.child.kill('SIGTERM');
    return this.output.exited;
  }

  /** For afterAll: never leave a server behind, whatever state a failed test left it in. */
  async kill(): Promise<void> {
    if (this.output.child.exitCode === null && this.output.child.signalCode === null) this.output.child.kill('SIGKILL');
    await this.output.exited;
  }
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'toolgate-proc-'));
}

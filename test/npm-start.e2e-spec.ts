import { spawn } from 'node:child_process';
import { cpSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { adminKeysIn, ChildOutput, cleanEnv, freePort, ROOT, tempDir } from './support/server-process';

/** What `npm start` needs from a checkout; node_modules is linked rather than installed again. */
const CHECKOUT = ['src', 'migrations', 'bench', 'scripts', 'package.json', 'package-lock.json'];
const LISTENING = /Toolgate listening on (http:\/\/\S+) \(/;
const BUILDING = 'Building dist/';

/**
 * `npm start` in a copy of the checkout, as the README's first command runs it. Its own process group,
 * so that stopping it reaches npm, the shell and the server alike.
 */
async function npmStart(dir: string, env: Record<string, string>): Promise<ChildOutput> {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: dir,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output = new ChildOutput(child);
  await output.waitFor(LISTENING);
  return output;
}

async function stop(output: ChildOutput): Promise<void> {
  process.kill(-output.child.pid!, 'SIGTERM');
  await output.exited;
}

describe('npm start', () => {
  const dir = tempDir();
  const mainJs = join(dir, 'dist/src/main.js');
  const running: ChildOutput[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    for (const entry of [...CHECKOUT, 'tsconfig.json', 'tsconfig.build.json']) {
      cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    env = { PORT: String(await freePort()), HOST: '127.0.0.1', TOOLGATE_DATA_DIR: join(dir, 'data') };
    env.LOG_LEVEL = 'info';
  });

  afterAll(async () => {
    for (const output of running) {
      if (output.child.exitCode === null && output.child.signalCode === null)
        process.kill(-output.child.pid!, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  // One checkout through three starts: whether a start builds depends on what the starts before it left.
  it(
    'builds on the first start and prints the admin key on stderr, outside the JSON logs; ' +
      'does not rebuild on the next start when nothing changed; rebuilds when a source file is newer than the build',
    async () => {
      await firstStartBuilds();
      await unchangedStartDoesNotRebuild();
      await newerSourceRebuilds();
    },
    600_000,
  );

  async function firstStartBuilds() {
    const first = await npmStart(dir, env);
    running.push(first);
    const [key] = adminKeysIn((await first.waitFor(/Admin API key[^\n]*\n\s+tg_\S+\n/, 'stderr'))[0]);
    expect(key).toMatch(/^tg_[A-Za-z0-9]{40}$/);
    await stop(first);

    expect(first.stderr).toContain(BUILDING);
    expect(first.stderr).toContain(`\n  ${key}\n`);
    expect(first.stdout).not.toContain(key);
    const logLines = first.stdout.split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) expect(() => JSON.parse(line)).not.toThrow();
  }

  async function unchangedStartDoesNotRebuild() {
    const builtAt = statSync(mainJs).mtimeMs;
    const second = await npmStart(dir, env);
    running.push(second);
    await stop(second);

    expect(second.stderr).not.toContain(BUILDING);
    expect(statSync(mainJs).mtimeMs).toBe(builtAt);
    expect(adminKeysIn(second.stderr)).toEqual([]);
  }

  async function newerSourceRebuilds() {
    const builtAt = statSync(mainJs).mtimeMs;
    const later = new Date(Date.now() + 2_000);
    utimesSync(join(dir, 'src/main.ts'), later, later);
    const third = await npmStart(dir, env);
    running.push(third);
    await stop(third);

    expect(third.stderr).toContain(BUILDING);
    expect(statSync(mainJs).mtimeMs).toBeGreaterThan(builtAt);
  }
});

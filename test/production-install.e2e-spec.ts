import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ChildOutput, cleanEnv, freePort, ROOT, tempDir } from './support/server-process';

const run = promisify(execFile);

/** What a checkout holds (node_modules and dist are made by the commands under test). */
const CHECKOUT = [
  ...['src', 'migrations', 'bench', 'scripts'],
  ...['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'],
];
const LISTENING = /Toolgate listening on (http:\/\/\S+) \(/;

/**
 * The README's production install without Docker, in a fresh copy of the checkout: `npm install && npm run build`,
 * then `npm install --omit=dev`, then `npm start`. The first `npm install` is stood in for by a link to this
 * checkout's node_modules, installed from the same lockfile; every later command runs as written.
 */
describe('a production install without Docker (README, "Without Docker")', () => {
  const dir = tempDir();
  const running: ChildOutput[] = [];

  const npm = (...args: string[]) =>
    run('npm', args, {
      cwd: dir,
      env: { ...process.env, npm_config_loglevel: 'error' },
      maxBuffer: 64 * 1024 * 1024,
    });

  /** `npm start` in its own process group, so that stopping it reaches npm, the shell and the server alike. */
  const npmStart = async (env: Record<string, string>): Promise<ChildOutput> => {
    const child = spawn('npm', ['start', '--silent'], {
      cwd: dir,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const output = new ChildOutput(child);
    running.push(output);
    return output;
  };

  beforeAll(async () => {
    for (const entry of CHECKOUT) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await npm('run', 'build');
    rmSync(join(dir, 'node_modules'));
    // The npm cache holds every package after the normal install; offline keeps the test off the network.
    const omitDev = (mode: string) => npm('install', '--omit=dev', mode, '--no-audit', '--no-fund');
    await omitDev('--offline').catch(() => omitDev('--prefer-offline'));
  }, 900_000);

  afterAll(() => {
    for (const output of running) {
      if (output.child.exitCode === null && output.child.signalCode === null)
        process.kill(-output.child.pid!, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves out the development tools', () => {
    expect(existsSync(join(dir, 'node_modules/@nestjs/core'))).toBe(true);
    for (const devOnly of ['jest', '@swc/core', '@types/body-parser', 'eslint']) {
      expect({ devOnly, installed: existsSync(join(dir, 'node_modules', devOnly)) }).toEqual({
        devOnly,
        installed: false,
      });
    }
  });

  it('starts with npm start on the embedded database without building, and answers /readyz', async () => {
    const port = await freePort();
    const env = { PORT: String(port), HOST: '127.0.0.1', TOOLGATE_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn' };
    const output = await npmStart(env);
    const [, url] = await output.waitFor(LISTENING);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', migrations: 'ok' } });
    process.kill(-output.child.pid!, 'SIGTERM');
    await output.exited;
    expect(output.stderr).not.toContain('Building dist/');
  }, 120_000);

  it('refuses to start sources newer than dist/, naming the commands that build it, not compiling without types', async () => {
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'src/main.ts'), later, later);
    const stale = await npmStart({ PORT: String(await freePort()), TOOLGATE_DATA_DIR: join(dir, 'data') });
    expect((await stale.exited).code).not.toBe(0);
    expect(stale.stderr).toContain('dist/ is older than the sources');
    expect(stale.stderr).toContain('npm install && npm run build');
    expect(stale.stderr).not.toMatch(/error TS\d+/);
    expect(stale.stderr).not.toContain('npm ci');

    rmSync(join(dir, 'dist'), { recursive: true, force: true });
    const unbuilt = await npmStart({ PORT: String(await freePort()), TOOLGATE_DATA_DIR: join(dir, 'data') });
    expect((await unbuilt.exited).code).not.toBe(0);
    expect(unbuilt.stderr).toContain('dist/ is not built');
    expect(unbuilt.stderr).toContain('npm install && npm run build');
    expect(unbuilt.stderr).not.toMatch(/error TS\d+/);
  }, 120_000);
});

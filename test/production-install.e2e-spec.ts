import { execFile } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildService, freePort, ROOT, ServerProcess, tempDir } from './support/server-process';

const run = promisify(execFile);

/**
 * What an operator (or the image's runtime stage) deploys: package.json, package-lock.json and dist, with
 * production dependencies only. Every package the service loads at run time must be among them.
 */
describe('a production install (npm install --omit=dev)', () => {
  const dir = tempDir();
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    await buildService();
    for (const file of ['package.json', 'package-lock.json', 'dist']) {
      cpSync(join(ROOT, file), join(dir, file), { recursive: true });
    }
    // The npm cache holds every package after the normal install; offline keeps the test off the network.
    const install = (mode: string) =>
      run('npm', ['install', '--omit=dev', mode, '--no-audit', '--no-fund'], {
        cwd: dir,
        env: { ...process.env, npm_config_loglevel: 'error' },
      });
    await install('--offline').catch(() => install('--prefer-offline'));
  }, 300_000);

  afterAll(async () => {
    await server?.kill();
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

  it('starts node dist/src/main.js on the embedded database and answers /readyz', async () => {
    const port = await freePort();
    server = await ServerProcess.start(
      { PORT: String(port), HOST: '127.0.0.1', TOOLGATE_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn' },
      dir,
      join(dir, 'dist/src/main.js'),
    );
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', migrations: 'ok' } });
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  }, 120_000);
});

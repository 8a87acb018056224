import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SERVER = join(__dirname, '..', '..', 'docker', 'sandbox-server', 'toolgate_sandbox_server.py');

/** A port free on loopback now: every fake pod listens on it, each on its own 127.x address. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}

/**
 * A fake pod: Toolgate's sandbox server (docker/sandbox-server) listening on `ip`:`port`, with a private
 * /mnt/data (bubblewrap binds a temporary directory there, as a pod's volume would be) and work directory.
 * Stopping it kills the server and removes both, as deleting a pod does.
 */
export async function startSandboxPod(ip: string, port: number): Promise<() => void> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-pod-'));
  const child = spawn(
    '/usr/bin/bwrap',
    [
      '--dev-bind',
      '/',
      '/',
      '--tmpfs',
      '/mnt',
      '--bind',
      root,
      '/mnt/data',
      '--die-with-parent',
      '--',
      '/usr/bin/python3',
      SERVER,
    ],
    {
      env: { PATH: '/usr/bin:/bin', SANDBOX_HOST: ip, SANDBOX_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.includes('sandbox server on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the sandbox server exited with code ${code}`)));
  });
  return () => {
    child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  };
}

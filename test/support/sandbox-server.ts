import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** Toolgate's sandbox server (docker/sandbox-server), run on loopback as the "pod" of every fake sandbox. */
export async function startSandboxServer(): Promise<{ port: number; stop: () => void }> {
  const script = join(__dirname, '..', '..', 'docker', 'sandbox-server', 'toolgate_sandbox_server.py');
  const child: ChildProcess = spawn('/usr/bin/python3', [script], {
    env: { PATH: '/usr/bin:/bin', SANDBOX_HOST: '127.0.0.1', SANDBOX_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = /sandbox server on port (\d+)/.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the sandbox server exited with code ${code}`)));
  });
  return { port, stop: () => child.kill('SIGKILL') };
}

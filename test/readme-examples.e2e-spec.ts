import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildService, freePort, ROOT, ServerProcess, tempDir } from './support/server-process';

const MARKER = '<!-- run in order against a fresh start by test/readme-examples.e2e-spec.ts -->';

/** The README's marked shell examples, in the order a reader meets them. */
function readmeExamples(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks = readme.split(MARKER).slice(1);
  return blocks.map((block) => {
    const match = /^\s*```bash\n([\s\S]*?)\n```/.exec(block);
    if (!match) throw new Error(`A README example marked for this test is not a bash block:\n${block.slice(0, 200)}`);
    return match[1];
  });
}

/**
 * A new user's first session: a fresh start (embedded database, nothing configured), then every marked example of
 * the README in order, in one shell, with curl on loopback. Only the port and the printed admin key differ from the
 * README's text.
 */
describe("the README's examples", () => {
  const cwd = tempDir();
  let server: ServerProcess | undefined;

  beforeAll(buildService, 300_000);
  afterAll(async () => {
    await server?.kill();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('run in order against a fresh start, from the first key to a file_search tool call', async () => {
    const examples = readmeExamples();
    expect(examples.length).toBeGreaterThanOrEqual(4);
    const port = await freePort();
    server = await ServerProcess.start({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, cwd);
    const adminKey = await server.adminKeyBanner();

    const script = ['set -euo pipefail', ...examples]
      .join('\n')
      .replaceAll('localhost:8080', `127.0.0.1:${port}`)
      .replace('ADMIN_KEY=tg_...', `ADMIN_KEY=${adminKey}`);
    expect(script).toContain(`ADMIN_KEY=${adminKey}`);
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd, timeout: 240_000 }).catch(
      (error: { stdout: string; stderr: string }) => {
        throw new Error(`The README's examples failed:\n${error.stdout}\n${error.stderr}`);
      },
    );

    expect(stdout).toContain('{"status":"ok"');
    expect(stdout).toContain('"name":"file_search"');
    expect(stdout).not.toContain('"error":{"message"');
    expect(stdout).not.toMatch(/Unknown tool/);
    // The file_search calls, plain and streamed, find the document the first steps uploaded.
    expect(stdout).toMatch(/"object":"tool_call".*"status":"completed".*Refunds are paid within 14 days/);
    expect(stdout).toContain('event: tool_call.completed');
    expect(stdout).toContain('data: [DONE]');
  }, 400_000);
});

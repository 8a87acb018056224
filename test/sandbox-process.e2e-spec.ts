import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { randomToken } from '../src/common/ids';
import { bearer } from './support/app';
import { createTestDatabase, TestDatabase } from './support/databases';
import { sandboxTemplateDir } from './support/sandbox-templates';
import { buildService, freePort, ServerProcess, tempDir } from './support/server-process';
import { waitFor } from './support/wait';

/** Processes on this machine whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** The real server process with sandbox tools: what its start-up says, and what a crash leaves behind. */
describe('sandbox tools in the server process', () => {
  const dir = tempDir();
  const templates = sandboxTemplateDir();
  const adminKey = `tg_test_admin_${randomToken(24)}`;
  let server: ServerProcess | undefined;
  let database: TestDatabase | undefined;

  beforeAll(buildService, 120_000);
  afterAll(async () => {
    await server?.kill();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(templates, { recursive: true, force: true });
  });

  async function start(sandbox: Record<string, unknown>): Promise<ServerProcess> {
    database ??= await createTestDatabase('postgres');
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ sandbox }));
    return ServerProcess.start(
      {
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url!,
        ADMIN_API_KEY: adminKey,
        TOOLGATE_DATA_DIR: join(dir, 'data'),
        TOOLGATE_CONFIG: config,
        TOOLGATE_SECRETS__ENCRYPTION_KEY: 'dG9vbGdhdGUtdGVzdC1rZXktMzItYnl0ZXMtbG9uZyE=',
      },
      dir,
    );
  }

  it('leaves no sandbox process behind when Toolgate is killed with SIGKILL mid-call', async () => {
    server = await start({ limits: { wall_time: '5m' }, local: { templates: { tests: templates } } });
    const http = request(server.url);
    const marker = `marker-${randomToken(16)}`;
    const tool = await http
      .post('/v1/tools')
      .set(bearer(adminKey))
      .send({
        name: 'sb-sleep',
        description: 'Sleeps for two minutes.',
        source: { type: 'sandbox', template: 'tests', entrypoint: `/usr/bin/python3 /template/sleep.py ${marker}` },
        schema: { type: 'object' },
      })
      .expect(201);
    for (const decision of ['reviewed', 'approved'])
      await http.post(`/v1/tools/${tool.body.id}/review`).set(bearer(adminKey)).send({ decision }).expect(200);

    const pending = http
      .post('/v1/tool_calls')
      .set(bearer(adminKey))
      .send({ name: 'sb-sleep', timeout_ms: 240_000 })
      .then(
        () => 'answered',
        () => 'connection lost',
      );
    await waitFor(() => processesWith(marker).length > 0, 20_000, 'the sandboxed process to start');

    await server.kill();
    expect(await pending).toBe('connection lost');
    await waitFor(() => processesWith(marker).length === 0, 10_000, 'no sandboxed process left');
    expect(processesWith(marker)).toEqual([]);
  }, 120_000);

  it('refuses sandbox tools at start-up, in one line, when isolation cannot work, and starts nothing', async () => {
    server = await start({ local: { bwrap_path: '/nonexistent/bwrap', templates: { tests: templates } } });
    const http = request(server.url);
    const refusals = server.output.stdout
      .split('\n')
      .filter((line) => line.includes('Sandbox tools are refused'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(refusals).toEqual([expect.stringMatching(/^Sandbox tools are refused: [^\n]*bwrap[^\n]*$/)]);

    const res = await http
      .post('/v1/tool_calls')
      .set(bearer(adminKey))
      .send({ name: 'sb-sleep', arguments: {} })
      .expect(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error.code).toBe('not_executable');
    expect(res.body.error.message).toContain("Tool 'sb-sleep' cannot run: bubblewrap cannot create a sandbox here");
  }, 120_000);
});

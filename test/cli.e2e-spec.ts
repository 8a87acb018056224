import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_MIGRATIONS } from '../migrations';
import { createTestDatabase, TestDatabase } from './support/databases';
import { buildService, cleanEnv, MAIN, MIGRATION_CLI, runNode, tempDir } from './support/server-process';

async function run(script: string, args: string[], env: Record<string, string>, cwd: string) {
  const output = runNode(script, args, cleanEnv(env), cwd);
  const exit = await output.exited;
  return { code: exit.code, stdout: output.stdout, stderr: output.stderr };
}

describe('command-line entry points', () => {
  const cwd = tempDir();

  beforeAll(buildService, 120_000);
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  describe('migration-cli (npm run migration:run / migration:revert)', () => {
    let database: TestDatabase;

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
    });
    afterAll(() => database?.drop());

    it('applies the migrations once, then has nothing pending; revert undoes the last one', async () => {
      const env = { DATABASE_URL: database.url!, LOG_LEVEL: 'silent' };
      const names = ALL_MIGRATIONS.map((migration) => migration.name);
      const first = await run(MIGRATION_CLI, ['run'], env, cwd);
      expect(first).toEqual({ code: 0, stdout: `Applied: ${names.join(', ')}\n`, stderr: '' });

      const second = await run(MIGRATION_CLI, ['run'], env, cwd);
      expect(second).toEqual({ code: 0, stdout: 'No pending migrations\n', stderr: '' });

      const reverted = await run(MIGRATION_CLI, ['revert'], env, cwd);
      expect(reverted).toEqual({ code: 0, stdout: 'Reverted the last migration\n', stderr: '' });
      const again = await run(MIGRATION_CLI, ['run'], env, cwd);
      expect(again).toEqual({ code: 0, stdout: `Applied: ${names[names.length - 1]}\n`, stderr: '' });
    });

    it('refuses an unknown command', async () => {
      const result = await run(MIGRATION_CLI, ['sideways'], { DATABASE_URL: database.url! }, cwd);
      expect(result).toEqual({ code: 1, stdout: '', stderr: 'Usage: migration-cli run|revert\n' });
    });
  });

  describe('a bad configuration stops the server with one line', () => {
    const singleLine = (stderr: string) => stderr.split('\n').filter((line) => line !== '');

    it('names the key, the value and the variable for PORT=abc', async () => {
      const result = await run(MAIN, [], { PORT: 'abc', TOOLGATE_DATA_DIR: cwd }, cwd);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(singleLine(result.stderr)).toEqual([
        expect.stringMatching(
          /^Invalid configuration: server\.port = "abc": .+ \(set it in config\.yaml or TOOLGATE_SERVER__PORT\)$/,
        ),
      ]);
    });

    it('refuses an unknown key in ./config.yaml', async () => {
      const dir = tempDir();
      try {
        writeFileSync(join(dir, 'config.yaml'), 'server:\n  prot: 9000\n');
        const result = await run(MAIN, [], { TOOLGATE_DATA_DIR: dir }, dir);
        expect(result.code).toBe(1);
        expect(singleLine(result.stderr)).toEqual([
          expect.stringMatching(/^Invalid configuration: unknown key server\.prot;/),
        ]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('reports a TOOLGATE_CONFIG file that does not exist', async () => {
      const missing = join(cwd, 'missing.yaml');
      const result = await run(MAIN, [], { TOOLGATE_CONFIG: missing, TOOLGATE_DATA_DIR: cwd }, cwd);
      expect(result.code).toBe(1);
      expect(singleLine(result.stderr)).toEqual([`Configuration file ${missing} (TOOLGATE_CONFIG) does not exist`]);
    });
  });
});

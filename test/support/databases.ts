import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { randomToken } from '../../src/common/ids';

/** The PostgreSQL server of the test machine (trust auth); override with TEST_DATABASE_URL. */
export const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type Engine = 'postgres' | 'pglite';

/** Both engines the service runs on; e2e suites run against each. */
export const ENGINES: Engine[] = ['postgres', 'pglite'];

/** An isolated database for one test: a fresh database on the server, or a fresh PGlite data directory. */
export interface TestDatabase {
  engine: Engine;
  /** For `postgres`: the database URL; for `pglite`: undefined (the app embeds it). */
  url?: string;
  dataDir: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-test-'));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (engine === 'pglite') return { engine, dataDir, drop: async () => removeDir() };
  const name = `toolgate_test_${randomToken(12).toLowerCase()}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return {
    engine,
    url: url.toString(),
    dataDir,
    drop: async () => {
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      removeDir();
    },
  };
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The config a test service starts from on `database`: silent logs, a small pool and a credentials key (an
 * external database needs one; a test wanting none passes `encryption_key: undefined`).
 */
export function testConfigBase(database: TestDatabase) {
  return {
    data_dir: database.dataDir,
    database: { url: database.url, pool_size: 5 },
    logging: { level: 'silent' },
    secrets: { encryption_key: 'dG9vbGdhdGUtdGVzdC1rZXktMzItYnl0ZXMtbG9uZyE=' },
  };
}

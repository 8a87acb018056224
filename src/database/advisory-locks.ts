import type { DataSource } from 'typeorm';

/** Advisory lock keys: one per kind of work that only one replica may do at a time. */
export const AdvisoryLock = {
  migrations: 7_301_001,
  bootstrapAdminKey: 7_301_002,
  builtinCatalogSync: 7_301_003,
} as const;

/** Runs `work` while holding a session-level advisory lock on a dedicated connection. */
export async function withAdvisoryLock<T>(dataSource: DataSource, key: number, work: () => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [key]);
    try {
      return await work();
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [key]);
    }
  } finally {
    await runner.release();
  }
}

import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

// Advisory locks are infrastructure shared by every module, so their SQL lives here rather than in a table's repository.

/** Advisory lock keys: one per kind of work that only one replica may do at a time. */
export const AdvisoryLock = {
  migrations: 7_301_001,
  bootstrapAdminKey: 7_301_002,
  builtinCatalogSync: 7_301_003,
  auditRetention: 7_301_004,
  credentialsRotation: 7_301_005,
  mcpRefresh: 7_301_006,
  /** Two-key lock (this, hashtext(source id)): one discovery of a source at a time. */
  mcpSource: 7_301_007,
  /** Creating a per-dimension vector table (file_search). */
  vectorTables: 7_301_008,
  /** Creating the built-in authorization server's signing key (auth.oauth.authorization_server). */
  oauthSigningKey: 7_301_009,
  /** Two-key lock (this, hashtext('upstream')): discoveries that give tools their servers' own names, one at a time. */
  mcpServedNames: 7_301_010,
} as const;

/**
 * Runs `work` unless another session holds the lock, answering undefined then: periodic work that one
 * replica at a time should do, where a replica that finds the lock taken simply skips its turn.
 */
export function tryWithAdvisoryLock<T>(
  dataSource: DataSource,
  key: number,
  work: () => Promise<T>,
): Promise<T | undefined> {
  return onOwnConnection(dataSource, async (runner) => {
    const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [key])) as {
      locked: boolean;
    }[];
    return locked ? holding(runner, key, work) : undefined;
  });
}

/** Runs `work` while holding a session-level advisory lock on a dedicated connection. */
export function withAdvisoryLock<T>(dataSource: DataSource, key: number, work: () => Promise<T>): Promise<T> {
  return onOwnConnection(dataSource, async (runner) => {
    await runner.query('SELECT pg_advisory_lock($1)', [key]);
    return holding(runner, key, work);
  });
}

/** A session-level lock belongs to one connection, so it is taken and released on one held for the purpose. */
async function onOwnConnection<T>(dataSource: DataSource, use: (runner: QueryRunner) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    return await use(runner);
  } finally {
    await runner.release();
  }
}

async function holding<T>(runner: QueryRunner, key: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [key]);
  }
}

/** Takes a two-key lock held until the transaction of `manager` ends. */
export async function lockForTransaction(manager: EntityManager, key: number, name: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [key, name]);
}

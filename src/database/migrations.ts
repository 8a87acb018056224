import type { DataSource } from 'typeorm';
import { AdvisoryLock, withAdvisoryLock } from './advisory-locks';

/** Applies pending migrations; replicas starting together queue on the lock, and the later ones find nothing to do. */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  return withAdvisoryLock(dataSource, AdvisoryLock.migrations, async () => {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  });
}

export async function revertLastMigration(dataSource: DataSource): Promise<void> {
  await withAdvisoryLock(dataSource, AdvisoryLock.migrations, () =>
    dataSource.undoLastMigration({ transaction: 'each' }),
  );
}

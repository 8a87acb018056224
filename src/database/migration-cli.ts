import { loadConfig } from '../config/config.loader';
import { Database } from './database';
import { revertLastMigration, runMigrations } from './migrations';

/** `npm run migration:run` / `migration:revert` against DATABASE_URL, or the embedded database. */
async function main(command: string | undefined): Promise<void> {
  if (command !== 'run' && command !== 'revert') {
    throw new Error('Usage: migration-cli run|revert');
  }
  const config = loadConfig(process.env, { database: { migrations_run: false } });
  const database = await Database.open(config);
  try {
    if (command === 'run') {
      const applied = await runMigrations(database.dataSource);
      console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'No pending migrations');
    } else {
      await revertLastMigration(database.dataSource);
      console.log('Reverted the last migration');
    }
  } finally {
    await database.close();
  }
}

main(process.argv[2]).catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});

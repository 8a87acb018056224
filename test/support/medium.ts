import { Test, TestingModule } from '@nestjs/testing';
import type { Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock, SystemClock } from '../../src/common/clock';
import { validateConfig } from '../../src/config/config.loader';
import type { MappedEntities } from '../../src/database/data-source.factory';
import { Database } from '../../src/database/database';
import { createTestDatabase, Engine } from './databases';

/** A migrated database with only the entities under test mapped, and a Nest module holding just `providers`. */
export interface MediumContext {
  module: TestingModule;
  dataSource: DataSource;
  close(): Promise<void>;
}

/**
 * The medium tier: a module's services and repositories on a real, migrated database (either engine), without
 * the HTTP surface or any other module. Everything a test needs beyond the DataSource and a clock is passed in
 * `providers`, so a test also shows what the code under test depends on.
 */
export async function mediumContext(
  engine: Engine,
  entities: MappedEntities,
  providers: Provider[],
  clock: Clock = new SystemClock(),
): Promise<MediumContext> {
  const database = await createTestDatabase(engine);
  const config = validateConfig({
    data_dir: database.dataDir,
    database: { url: database.url, pool_size: 5 },
    logging: { level: 'silent' },
  });
  const opened = await Database.open(config, entities).catch(async (error: unknown) => {
    await database.drop();
    throw error;
  });
  const module = await Test.createTestingModule({
    providers: [
      { provide: DataSource, useValue: opened.dataSource },
      { provide: Clock, useValue: clock },
      ...providers,
    ],
  }).compile();
  return {
    module,
    dataSource: opened.dataSource,
    close: async () => {
      await module.close();
      await opened.close();
      await database.drop();
    },
  };
}

import { Test, TestingModule } from '@nestjs/testing';
import type { ModuleMetadata, Provider } from '@nestjs/common';
import { ClsModule } from 'nestjs-cls';
import { DataSource } from 'typeorm';
import { Clock, SystemClock } from '../../src/common/clock';
import { deepMerge, validateConfig } from '../../src/config/config.loader';
import type { ConfigInput } from '../../src/config/config.schema';
import { CoreModule } from '../../src/core.module';
import type { MappedEntities } from '../../src/database/data-source.factory';
import { Database } from '../../src/database/database';
import { createTestDatabase, Engine, testConfigBase } from './databases';

export interface MediumOptions {
  /** The mapped entities: those of the modules under test only. */
  entities: MappedEntities;
  /** Feature modules under test, with what they import. */
  imports?: ModuleMetadata['imports'];
  /** Single providers under test (a repository on its own). */
  providers?: Provider[];
  config?: ConfigInput;
  clock?: Clock;
}

/** A migrated database and a Nest module holding just what is under test, over the service's core module. */
export interface MediumContext {
  module: TestingModule;
  dataSource: DataSource;
  close(): Promise<void>;
}

/**
 * The medium tier: a module's services and repositories on a real, migrated database (either engine), without
 * the HTTP surface or the modules it does not import. The core module (config, clock, database, change events)
 * is the service's own.
 */
export async function mediumContext(engine: Engine, options: MediumOptions): Promise<MediumContext> {
  const database = await createTestDatabase(engine);
  // The sentence encoder loads a 250 MB model and changes scores: off here, as in the e2e suites (test/support/app.ts).
  const base = { ...testConfigBase(database), catalog: { review: { encoder: false } } };
  const config = validateConfig(deepMerge(base, options.config ?? {}));
  const opened = await Database.open(config, options.entities).catch(async (error: unknown) => {
    await database.drop();
    throw error;
  });
  try {
    const module = await Test.createTestingModule({
      imports: [
        CoreModule.forRoot(config, opened, options.clock ?? new SystemClock()),
        ClsModule.forRoot({ global: true }),
        ...(options.imports ?? []),
      ],
      providers: options.providers ?? [],
    }).compile();
    await module.init();
    return {
      module,
      dataSource: opened.dataSource,
      close: async () => {
        await module.close();
        await opened.close();
        await database.drop();
      },
    };
  } catch (error) {
    await opened.close();
    await database.drop();
    throw error;
  }
}

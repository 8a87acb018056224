import { DataSource, EntityManager } from 'typeorm';
import type { Config } from '../config/config.schema';
import { createDataSource, MappedEntities, RESERVED_CONNECTIONS } from './data-source.factory';
import { EmbeddedPostgres } from './embedded-postgres';
import { runMigrations } from './migrations';

/** Where a repository's SQL runs: the DataSource, or a transaction's EntityManager when it is part of one. */
export type Queryable = Pick<EntityManager, 'query'>;

/**
 * The service's database: PostgreSQL at `database.url`, or embedded PGlite under the data directory
 * when no URL is configured. Owns the DataSource and, for the embedded case, the PGlite instance.
 */
export class Database {
  private constructor(
    readonly dataSource: DataSource,
    readonly url: string,
    private readonly embedded?: EmbeddedPostgres,
  ) {}

  get isEmbedded(): boolean {
    return this.embedded !== undefined;
  }

  /** `entities` are the modules' mappings; the migration CLI needs none. */
  static async open(config: Config, entities: MappedEntities = []): Promise<Database> {
    const embedded = config.database.url
      ? undefined
      : await EmbeddedPostgres.start(config.data_dir, config.database.pool_size + RESERVED_CONNECTIONS);
    const url = config.database.url ?? embedded!.url;
    const dataSource = createDataSource(url, config, entities);
    try {
      await dataSource.initialize();
      if (config.database.migrations_run) await runMigrations(dataSource);
    } catch (error) {
      if (dataSource.isInitialized) await dataSource.destroy();
      await embedded?.stop();
      throw error;
    }
    return new Database(dataSource, url, embedded);
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.embedded?.stop();
  }
}

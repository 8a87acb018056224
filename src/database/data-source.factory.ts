import { DataSource, DataSourceOptions } from 'typeorm';
import { ALL_MIGRATIONS } from '../../migrations';
import type { Config } from '../config/config.schema';

/** Connections kept free beyond the pool: the LISTEN connection and advisory-lock holders. */
export const RESERVED_CONNECTIONS = 4;

/** What a DataSource maps: entity classes (or schemas), supplied by the composition root that knows the modules. */
export type MappedEntities = NonNullable<DataSourceOptions['entities']>;

export function createDataSource(url: string, config: Config, entities: MappedEntities): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations: ALL_MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
    extra: {
      max: config.database.pool_size,
      statement_timeout: config.database.statement_timeout,
      application_name: 'toolgate',
    },
  });
}

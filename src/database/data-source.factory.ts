import { DataSource } from 'typeorm';
import { ALL_MIGRATIONS } from '../../migrations';
import type { Config } from '../config/config.schema';
import { ENTITIES } from './entities';

/** Connections kept free beyond the pool: the LISTEN connection and advisory-lock holders. */
export const RESERVED_CONNECTIONS = 4;

export function createDataSource(url: string, config: Config): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: ENTITIES,
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

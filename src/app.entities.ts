import { AUTH_ENTITIES } from './auth/auth.entities';
import { RESPONSES_ENTITIES } from './responses/responses.entities';
import { TENANCY_ENTITIES } from './tenancy/tenancy.entities';
import { FILE_SEARCH_ENTITIES } from './tools/builtins/file-search/file-search.entities';
import { CATALOG_ENTITIES } from './tools/catalog/catalog.entities';
import { CREDENTIALS_ENTITIES } from './tools/catalog/credentials/credentials.entities';
import { GUARDS_ENTITIES } from './tools/guards/guards.entities';
import { MCP_ENTITIES } from './tools/mcp/mcp.entities';

/**
 * Every module's TypeORM entities, gathered where all modules are known, for the one DataSource.
 * Each module lists its own; the schema itself is owned by the migrations in /migrations.
 */
export const APP_ENTITIES = [
  ...AUTH_ENTITIES,
  ...TENANCY_ENTITIES,
  ...CATALOG_ENTITIES,
  ...CREDENTIALS_ENTITIES,
  ...MCP_ENTITIES,
  ...GUARDS_ENTITIES,
  ...RESPONSES_ENTITIES,
  ...FILE_SEARCH_ENTITIES,
];

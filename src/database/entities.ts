import { ApiKeyEntity } from '../auth/api-key.entity';
import { TenantSettingsEntity } from '../tenancy/tenant-settings.entity';

/** Every TypeORM entity; the schema itself is owned by the migrations in /migrations. */
export const ENTITIES = [ApiKeyEntity, TenantSettingsEntity];

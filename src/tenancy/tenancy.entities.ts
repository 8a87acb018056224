import { TenantSettingsEntity } from './tenant-settings.entity';

export const TENANCY_ENTITIES = [TenantSettingsEntity];

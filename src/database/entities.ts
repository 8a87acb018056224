import { ApiKeyEntity } from '../auth/api-key.entity';
import { TenantSettingsEntity } from '../tenancy/tenant-settings.entity';
import { BundleAssignmentEntity, BundleEntity } from '../tools/catalog/bundle.entity';
import { ToolReviewEntity } from '../tools/catalog/tool-review.entity';
import { ToolEntity } from '../tools/catalog/tool.entity';

/** Every TypeORM entity; the schema itself is owned by the migrations in /migrations. */
export const ENTITIES = [
  ApiKeyEntity,
  TenantSettingsEntity,
  ToolEntity,
  ToolReviewEntity,
  BundleEntity,
  BundleAssignmentEntity,
];

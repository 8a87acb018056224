import { ApiKeyEntity } from '../auth/api-key.entity';
import { McpSourceEntity } from '../tools/mcp/mcp-source.entity';
import { TenantSettingsEntity } from '../tenancy/tenant-settings.entity';
import { BundleAssignmentEntity, BundleEntity } from '../tools/catalog/bundle.entity';
import { ToolReviewEntity } from '../tools/catalog/tool-review.entity';
import { ToolEntity } from '../tools/catalog/tool.entity';
import { AuditRecordEntity } from '../tools/catalog/audit/audit-record.entity';
import { CredentialEntity } from '../tools/catalog/credentials/credential.entity';
import { FileEntity } from '../tools/builtins/file-search/files/file.entity';
import { FileBatchEntity } from '../tools/builtins/file-search/vector-store-files/file-batch.entity';
import { VectorStoreFileEntity } from '../tools/builtins/file-search/vector-store-files/vector-store-file.entity';
import { VectorStoreEntity } from '../tools/builtins/file-search/vector-stores/vector-store.entity';
import { ResponseEntity } from '../responses/response.entity';
import { ResponseItemEntity } from '../responses/response-item.entity';

/** Every TypeORM entity; the schema itself is owned by the migrations in /migrations. */
export const ENTITIES = [
  ApiKeyEntity,
  TenantSettingsEntity,
  ToolEntity,
  ToolReviewEntity,
  BundleEntity,
  BundleAssignmentEntity,
  AuditRecordEntity,
  FileEntity,
  VectorStoreEntity,
  VectorStoreFileEntity,
  FileBatchEntity,
  CredentialEntity,
  McpSourceEntity,
  ResponseEntity,
  ResponseItemEntity,
];

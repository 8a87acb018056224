import { AuditRecordEntity } from './audit/audit-record.entity';
import { BundleAssignmentEntity, BundleEntity } from './bundle.entity';
import { ToolReviewEntity } from './tool-review.entity';
import { ToolEntity } from './tool.entity';

export const CATALOG_ENTITIES = [ToolEntity, ToolReviewEntity, BundleEntity, BundleAssignmentEntity, AuditRecordEntity];

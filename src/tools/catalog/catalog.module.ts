import { Global, Module } from '@nestjs/common';
import { ToolCallAudit } from '../invocation/tool-call-audit';
import { ToolPolicy } from '../invocation/tool-policy';
import { AuditQueryService } from './audit/audit-query.service';
import { AuditTrail } from './audit/audit-trail';
import { AuditController } from './audit/audit.controller';
import { RetentionJob } from './audit/retention.job';
import { UsageService } from './audit/usage.service';
import { RateLimiter } from './rate-limits/rate-limiter';
import { RateLimitCounterRepository } from './rate-limits/rate-limit-counter.repository';
import { AuditRecordRepository } from './audit/audit-record.repository';
import { BuiltinCatalogSync } from './builtin-catalog-sync';
import { BundlesController } from './bundles.controller';
import { BundlesService } from './bundles.service';
import { CatalogMetrics } from './catalog.metrics';
import { CatalogState } from './catalog-state';
import { CatalogToolPolicy } from './catalog-tool-policy';
import { ReviewJudge } from './review-judge';
import { ToolReviewService } from './tool-review.service';
import { ToolsController } from './tools.controller';
import { ToolsService } from './tools.service';

/**
 * The managed catalog: the dispatcher's ToolPolicy (access, review state, rate limits) and its
 * ToolCallAudit. Controllers of sub-resources of /v1/tools (bundles, audit) are listed before
 * ToolsController so their paths win over /v1/tools/:id.
 */
@Global()
@Module({
  controllers: [BundlesController, AuditController, ToolsController],
  providers: [
    RateLimitCounterRepository,
    AuditRecordRepository,
    RateLimiter,
    AuditQueryService,
    UsageService,
    RetentionJob,
    { provide: ToolCallAudit, useClass: AuditTrail },
    CatalogState,
    CatalogMetrics,
    ReviewJudge,
    ToolReviewService,
    ToolsService,
    BundlesService,
    BuiltinCatalogSync,
    { provide: ToolPolicy, useClass: CatalogToolPolicy },
  ],
  exports: [CatalogState, ToolPolicy, ToolCallAudit, ToolsService, ToolReviewService],
})
export class CatalogModule {}

import { Module } from '@nestjs/common';
import { ObservabilityModule } from '../../observability/observability.module';
import { TenancyModule } from '../../tenancy/tenancy.module';
import { RegistryModule } from '../registry/registry.module';
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
import { BundleRepository } from './bundle.repository';
import { BundlesService } from './bundles.service';
import { CatalogDiscovery } from './catalog-discovery.service';
import { CredentialsModule } from './credentials/credentials.module';
import { CatalogMetrics } from './catalog.metrics';
import { CatalogState } from './catalog-state';
import { CatalogToolPolicy } from './catalog-tool-policy';
import { ReviewEncoder } from './review/encoder/review-encoder';
import { ReviewJudge } from './review-judge';
import { ToolReviewRepository } from './tool-review.repository';
import { ToolReviewService } from './tool-review.service';
import { ToolRepository } from './tool.repository';
import { ToolsController } from './tools.controller';
import { ToolsService } from './tools.service';

/**
 * The managed catalog: the dispatcher's ToolPolicy (access, review state, rate limits) and its
 * ToolCallAudit. Controllers of sub-resources of /v1/tools (bundles, audit) are listed before
 * ToolsController so their paths win over /v1/tools/:id. MCP discovery writes into the catalog through
 * CatalogDiscovery.
 */
@Module({
  imports: [ObservabilityModule, TenancyModule, RegistryModule, CredentialsModule],
  controllers: [BundlesController, AuditController, ToolsController],
  providers: [
    ToolRepository,
    ToolReviewRepository,
    BundleRepository,
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
    ReviewEncoder,
    ToolReviewService,
    ToolsService,
    BundlesService,
    CatalogDiscovery,
    BuiltinCatalogSync,
    { provide: ToolPolicy, useClass: CatalogToolPolicy },
  ],
  exports: [
    CatalogState,
    CatalogMetrics,
    RateLimiter,
    ToolPolicy,
    ToolCallAudit,
    ToolsService,
    ToolReviewService,
    CatalogDiscovery,
  ],
})
export class CatalogModule {}

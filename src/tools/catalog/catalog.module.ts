import { forwardRef, Module } from '@nestjs/common';
import { ObservabilityModule } from '../../observability/observability.module';
import { TenancyModule } from '../../tenancy/tenancy.module';
import { McpModule } from '../mcp/mcp.module';
import { RegistryModule } from '../registry/registry.module';
import { ToolCallAudit } from '../invocation/tool-call-audit';
import { ToolPolicy } from '../invocation/tool-policy';
import { AuditQueryService } from './audit/audit-query.service';
import { AuditTrail } from './audit/audit-trail';
import { AuditController } from './audit/audit.controller';
import { RetentionJob } from './audit/retention.job';
import { UsageService } from './audit/usage.service';
import { RateLimiter } from './rate-limits/rate-limiter';
import { BuiltinCatalogSync } from './builtin-catalog-sync';
import { BundlesController } from './bundles.controller';
import { BundlesService } from './bundles.service';
import { CredentialsModule } from './credentials/credentials.module';
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
 * ToolsController so their paths win over /v1/tools/:id. McpModule supplies the executor of `mcp` tools
 * and itself writes discovered tools into the catalog, hence the forward reference between the two.
 */
@Module({
  imports: [ObservabilityModule, TenancyModule, RegistryModule, CredentialsModule, forwardRef(() => McpModule)],
  controllers: [BundlesController, AuditController, ToolsController],
  providers: [
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
  exports: [CatalogState, CatalogMetrics, RateLimiter, ToolPolicy, ToolCallAudit, ToolsService, ToolReviewService],
})
export class CatalogModule {}

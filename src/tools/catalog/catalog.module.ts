import { Global, Module } from '@nestjs/common';
import { ToolPolicy } from '../invocation/tool-policy';
import { BuiltinCatalogSync } from './builtin-catalog-sync';
import { BundlesController } from './bundles.controller';
import { BundlesService } from './bundles.service';
import { CatalogMetrics } from './catalog.metrics';
import { CatalogState } from './catalog-state';
import { CatalogToolPolicy } from './catalog-tool-policy';
import { ToolReviewService } from './tool-review.service';
import { ToolsController } from './tools.controller';
import { ToolsService } from './tools.service';

/**
 * The managed catalog (seed 001). It is the dispatcher's ToolPolicy. Controllers of sub-resources of
 * /v1/tools (bundles, ...) are listed before ToolsController so their paths win over /v1/tools/:id.
 */
@Global()
@Module({
  controllers: [BundlesController, ToolsController],
  providers: [
    CatalogState,
    CatalogMetrics,
    ToolReviewService,
    ToolsService,
    BundlesService,
    BuiltinCatalogSync,
    { provide: ToolPolicy, useClass: CatalogToolPolicy },
  ],
  exports: [CatalogState, ToolPolicy, ToolsService],
})
export class CatalogModule {}

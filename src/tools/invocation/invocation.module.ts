import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ObservabilityModule } from '../../observability/observability.module';
import { TenancyModule } from '../../tenancy/tenancy.module';
import { CatalogModule } from '../catalog/catalog.module';
import { CredentialsModule } from '../catalog/credentials/credentials.module';
import { EffectiveToolChanges } from './effective-tool-changes';
import { GuardsModule } from '../guards/guards.module';
import { InvocationMetrics } from './invocation.metrics';
import { ToolCallsController } from './tool-calls.controller';
import { ToolDefinitionsController } from './tool-definitions.controller';
import { ToolDispatcher } from './tool-dispatcher';
import { ToolExecutors } from './tool-executors';
import { ResumptionSeal } from './resumption-seal';

/**
 * The dispatcher and its routes; the ToolPolicy it obeys comes from the catalog, the executors it calls
 * are found by their `@ToolExecutorFor()` mark in whichever module provides them.
 */
@Module({
  imports: [DiscoveryModule, ObservabilityModule, TenancyModule, CatalogModule, CredentialsModule, GuardsModule],
  controllers: [ToolCallsController, ToolDefinitionsController],
  providers: [ToolDispatcher, ToolExecutors, InvocationMetrics, EffectiveToolChanges, ResumptionSeal],
  exports: [ToolDispatcher, EffectiveToolChanges, ResumptionSeal],
})
export class InvocationModule {}

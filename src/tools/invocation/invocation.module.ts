import { Module } from '@nestjs/common';
import { ObservabilityModule } from '../../observability/observability.module';
import { TenancyModule } from '../../tenancy/tenancy.module';
import { CatalogModule } from '../catalog/catalog.module';
import { CredentialsModule } from '../catalog/credentials/credentials.module';
import { InvocationMetrics } from './invocation.metrics';
import { ToolCallsController } from './tool-calls.controller';
import { ToolDefinitionsController } from './tool-definitions.controller';
import { ToolDispatcher } from './tool-dispatcher';

/** The dispatcher and its routes; the ToolPolicy it obeys comes from the catalog. */
@Module({
  imports: [ObservabilityModule, TenancyModule, CatalogModule, CredentialsModule],
  controllers: [ToolCallsController, ToolDefinitionsController],
  providers: [ToolDispatcher, InvocationMetrics],
  exports: [ToolDispatcher],
})
export class InvocationModule {}

import { McpDefinitionCheck } from './mcp-definition-check';
import { forwardRef, Module } from '@nestjs/common';
import { ObservabilityModule } from '../../observability/observability.module';
import { CatalogModule } from '../catalog/catalog.module';
import { CredentialsModule } from '../catalog/credentials/credentials.module';
import { RegistryModule } from '../registry/registry.module';
import { CatalogExecutors } from '../catalog/catalog-tool-policy';
import { McpClientPool } from './mcp-client-pool';
import { McpDiscoveryService } from './mcp-discovery.service';
import { McpExecutor } from './mcp-executor';
import { McpHealth } from './mcp-health';
import { McpRefreshScheduler } from './mcp-refresh.scheduler';
import { McpSourcesController } from './mcp-sources.controller';
import { McpSourcesService } from './mcp-sources.service';
import { SsrfGuardedFetch } from './ssrf-guarded-fetch';

/** MCP sources, discovery, health and the McpExecutor the catalog uses for `source.type = mcp` tools. */
@Module({
  imports: [ObservabilityModule, RegistryModule, CredentialsModule, forwardRef(() => CatalogModule)],
  controllers: [McpSourcesController],
  providers: [
    SsrfGuardedFetch,
    McpClientPool,
    McpHealth,
    McpSourcesService,
    McpDiscoveryService,
    McpRefreshScheduler,
    McpDefinitionCheck,
    McpExecutor,
    { provide: CatalogExecutors, useExisting: McpExecutor },
  ],
  exports: [CatalogExecutors, McpSourcesService, McpClientPool],
})
export class McpModule {}

import { McpDefinitionCheck } from './mcp-definition-check';
import { Module } from '@nestjs/common';
import { ObservabilityModule } from '../../observability/observability.module';
import { CatalogModule } from '../catalog/catalog.module';
import { CredentialsModule } from '../catalog/credentials/credentials.module';
import { RegistryModule } from '../registry/registry.module';
import { UpstreamEras } from './era-2026/upstream-eras';
import { McpClientPool } from './mcp-client-pool';
import { McpDiscoveryService } from './mcp-discovery.service';
import { McpExecutor } from './mcp-executor';
import { McpHealth } from './mcp-health';
import { McpRefreshScheduler } from './mcp-refresh.scheduler';
import { McpSourcesController } from './mcp-sources.controller';
import { McpSourceRepository } from './mcp-source.repository';
import { McpSourcesService } from './mcp-sources.service';
import { SsrfGuardedFetch } from './ssrf-guarded-fetch';

/** MCP sources, discovery, health and the McpExecutor that runs `source.type = mcp` tools. */
@Module({
  imports: [ObservabilityModule, RegistryModule, CredentialsModule, CatalogModule],
  controllers: [McpSourcesController],
  providers: [
    SsrfGuardedFetch,
    McpClientPool,
    UpstreamEras,
    McpHealth,
    McpSourceRepository,
    McpSourcesService,
    McpDiscoveryService,
    McpRefreshScheduler,
    McpDefinitionCheck,
    McpExecutor,
  ],
  exports: [McpSourcesService, McpClientPool],
})
export class McpModule {}

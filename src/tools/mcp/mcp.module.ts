import { McpDefinitionCheck } from './mcp-definition-check';
import { Global, Module } from '@nestjs/common';
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
@Global()
@Module({
  controllers: [McpSourcesController],
  providers: [
    SsrfGuardedFetch,
    McpClientPool,
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

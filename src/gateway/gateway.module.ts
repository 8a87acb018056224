import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/tenancy.module';
import { InvocationModule } from '../tools/invocation/invocation.module';
import { ModernGatewayService } from './era-2026/modern-gateway.service';
import { ToolListSubscriptions } from './era-2026/tool-list-subscriptions';
import { McpGatewayController } from './mcp-gateway.controller';
import { McpGatewayService } from './mcp-gateway.service';
import { toolEmbeddingsProvider } from './tool-search/tool-embeddings.provider';
import { ToolSearch } from './tool-search/tool-search.service';
import { ToolSearchCache } from './tool-search/tool-search-cache';

/**
 * The MCP server endpoint /mcp, exposing each tenant's effective tools to MCP clients of both protocol
 * eras (the SDK's 2025 server, and era-2026/ for 2026-07-28). It reaches tools
 * only through the dispatcher; OriginCheckMiddleware guarding it is mounted by AppModule.
 */
@Module({
  imports: [TenancyModule, InvocationModule],
  controllers: [McpGatewayController],
  providers: [
    McpGatewayService,
    ModernGatewayService,
    ToolListSubscriptions,
    ToolSearchCache,
    toolEmbeddingsProvider,
    ToolSearch,
  ],
})
export class GatewayModule {}

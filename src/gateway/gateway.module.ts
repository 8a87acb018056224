import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { McpGatewayController } from './mcp-gateway.controller';
import { McpGatewayService } from './mcp-gateway.service';
import { OriginCheckMiddleware } from './origin-check';
import { registryCors } from './registry/registry-cors.middleware';
import { RegistryController } from './registry/registry.controller';
import { RegistryService } from './registry/registry.service';
import { toolEmbeddingsProvider } from './tool-search/tool-embeddings.provider';
import { ToolSearch } from './tool-search/tool-search.service';
import { ToolSearchCache } from './tool-search/tool-search-cache';

/** The MCP server endpoint /mcp, exposing each tenant's effective tools to MCP clients, and its registry API. */
@Module({
  controllers: [McpGatewayController, RegistryController],
  providers: [McpGatewayService, RegistryService, ToolSearchCache, toolEmbeddingsProvider, ToolSearch],
})
export class GatewayModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(OriginCheckMiddleware)
      .forRoutes(
        { path: 'mcp', method: RequestMethod.ALL },
        { path: 'mcp/profiles/:agent_profile', method: RequestMethod.ALL },
      );
    consumer.apply(registryCors).forRoutes({ path: 'v0.1/*path', method: RequestMethod.ALL });
  }
}

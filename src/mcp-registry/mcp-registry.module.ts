import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/tenancy.module';
import { CatalogModule } from '../tools/catalog/catalog.module';
import { InvocationModule } from '../tools/invocation/invocation.module';
import { McpModule } from '../tools/mcp/mcp.module';
import { RegistryController } from './registry.controller';
import { RegistryService } from './registry.service';

/**
 * /v0.1/servers: the MCP Registry API, a read view over the MCP sources whose tools are in the caller's
 * effective set. Its own module because it reads the catalog and the MCP sources, which the /mcp gateway
 * must not; its registryCors middleware is mounted by AppModule.
 */
@Module({
  imports: [TenancyModule, InvocationModule, CatalogModule, McpModule],
  controllers: [RegistryController],
  providers: [RegistryService],
})
export class McpRegistryModule {}

import { Module } from '@nestjs/common';
import { McpGatewayController } from './mcp-gateway.controller';
import { McpGatewayService } from './mcp-gateway.service';

/** The MCP server endpoint /mcp, exposing each tenant's effective tools to MCP clients. */
@Module({ controllers: [McpGatewayController], providers: [McpGatewayService] })
export class GatewayModule {}

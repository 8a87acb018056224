import { McpSourceEntity } from './mcp-source.entity';

export const MCP_ENTITIES = [McpSourceEntity];

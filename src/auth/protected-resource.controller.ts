import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { AppConfig } from '../config/app-config';
import { Public } from './auth.decorators';
import { OAuthConfig } from './oauth-resource';

/**
 * RFC 9728 Protected Resource Metadata for /mcp: where MCP clients learn which authorization server issues
 * tokens for this resource. Served at the root and at the path-aware address the challenges point to.
 */
const EXAMPLE = {
  resource: 'https://toolgate.example.com/mcp',
  authorization_servers: ['https://idp.example.com'],
  scopes_supported: ['toolgate:mcp'],
  bearer_methods_supported: ['header'],
  resource_name: 'Toolgate MCP gateway',
};

@Public()
@ApiTags('MCP gateway')
@Controller('.well-known/oauth-protected-resource')
export class ProtectedResourceController {
  private readonly metadata: OAuthProtectedResourceMetadata;

  constructor(config: AppConfig) {
    this.metadata = protectedResourceMetadata(config.auth.oauth);
  }

  @Get()
  @Header('Cache-Control', 'public, max-age=3600')
  @ApiOperation({
    summary: 'OAuth protected resource metadata (RFC 9728)',
    description: 'Served when auth.oauth.issuer is set: the authorization server and scopes for /mcp.',
  })
  @ApiOkResponse({ description: 'The metadata document.', schema: { example: EXAMPLE } })
  root(): OAuthProtectedResourceMetadata {
    return this.metadata;
  }

  @Get('mcp')
  @Header('Cache-Control', 'public, max-age=3600')
  @ApiOperation({ summary: 'OAuth protected resource metadata for /mcp (RFC 9728, path-aware)' })
  @ApiOkResponse({ description: 'The metadata document.', schema: { example: EXAMPLE } })
  mcp(): OAuthProtectedResourceMetadata {
    return this.metadata;
  }
}

function protectedResourceMetadata(oauth: OAuthConfig): OAuthProtectedResourceMetadata {
  return {
    resource: oauth.resource!,
    authorization_servers: [oauth.issuer!],
    scopes_supported: oauth.scopes,
    bearer_methods_supported: ['header'],
    resource_name: 'Toolgate MCP gateway',
  };
}

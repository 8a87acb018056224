import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { AppConfig } from '../../config/app-config';
import { Public } from '../auth.decorators';
import { SigningKeys } from './signing-keys';

/** The routes of the built-in authorization server, relative to its issuer (the origin of auth.oauth.resource). */
export const JWKS_PATH = '/.well-known/jwks.json';

@Public()
@ApiTags('OAuth authorization server')
@Controller('.well-known')
export class AuthorizationServerMetadataController {
  private readonly metadata: OAuthMetadata & Record<string, unknown>;

  constructor(
    config: AppConfig,
    private readonly keys: SigningKeys,
  ) {
    const oauth = config.auth.oauth;
    const issuer = oauth.issuer!;
    this.metadata = {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      jwks_uri: `${issuer}${JWKS_PATH}`,
      scopes_supported: oauth.scopes,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: oauth.authorization_server.client_id_metadata_documents,
    };
  }

  @Get('oauth-authorization-server')
  @Header('Cache-Control', 'public, max-age=3600')
  @ApiOperation({
    summary: 'Authorization server metadata (RFC 8414)',
    description: 'Served when auth.oauth.authorization_server.enabled is true.',
  })
  @ApiOkResponse({ description: 'The metadata document.' })
  authorizationServer(): OAuthMetadata {
    return this.metadata;
  }

  @Get('jwks.json')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({ summary: "The authorization server's public signing keys (JWKS)" })
  @ApiOkResponse({ description: 'A JSON Web Key Set.' })
  jwks(): { keys: object[] } {
    return { keys: [this.keys.current.publicJwk] };
  }
}

import { Body, Controller, Header, HttpCode, Post, Req, UseFilters } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../auth.decorators';
import { ClientRegistration, OAuthClients } from './oauth-clients';
import { OAuthErrorFilter } from './oauth-error';

/** Dynamic Client Registration (RFC 7591), open as MCP clients expect: every client is public and needs PKCE. */
@Public()
@ApiTags('OAuth authorization server')
@UseFilters(OAuthErrorFilter)
@Controller('register')
export class RegistrationController {
  constructor(private readonly clients: OAuthClients) {}

  @Post()
  @HttpCode(201)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Register an OAuth client (RFC 7591)',
    description:
      'Served when auth.oauth.authorization_server.enabled is true. redirect_uris (1 to 10) must be https, or ' +
      'http on 127.0.0.1, [::1] or localhost (any port matches later). The client is public ' +
      '(token_endpoint_auth_method none): no secret is issued. application_type, when given, is web or native; a web client may not use loopback redirect URIs. ' +
      'The metadata may take at most 5 KB. Registrations are rate-limited per source address ' +
      '(auth.oauth.authorization_server.registration_rate_limit), and a client nobody authorizes within ' +
      'unused_client_ttl is deleted.',
  })
  @ApiCreatedResponse({
    description: 'The registered client.',
    schema: {
      example: {
        client_id: 'tgc_3xT9...',
        client_id_issued_at: 1767225600,
        application_type: 'web',
        client_name: 'Claude',
        redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    },
  })
  @ApiBadRequestResponse({
    description: 'RFC 7591 error.',
    schema: { example: { error: 'invalid_redirect_uri', error_description: 'The redirect URI ... must use https' } },
  })
  @ApiTooManyRequestsResponse({
    description: 'Too many registrations from this address; Retry-After says when to try again.',
    schema: {
      example: {
        error: 'temporarily_unavailable',
        error_description: 'Too many client registrations from this address: at most 10 per minute',
      },
    },
  })
  register(@Body() body: Record<string, unknown>, @Req() request: Request): Promise<ClientRegistration> {
    return this.clients.register(body, request.ip);
  }
}

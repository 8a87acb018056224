import { Body, Controller, Header, HttpCode, Post, Req, UseFilters } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../auth.decorators';
import { Grants, TokenResponse } from './grants';
import { OAuthError, OAuthErrorFilter } from './oauth-error';

const TOKEN_EXAMPLE = {
  access_token: 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6Ii4uLiJ9...',
  token_type: 'Bearer',
  expires_in: 600,
  refresh_token: 'tgr_6Jw1...',
  scope: 'toolgate:mcp',
};

/** The token endpoint (RFC 6749 section 3.2): authorization_code with PKCE, and refresh_token with rotation. */
@Public()
@ApiTags('OAuth authorization server')
@UseFilters(OAuthErrorFilter)
@Controller('token')
export class TokenController {
  constructor(private readonly grants: Grants) {}

  @Post()
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOperation({
    summary: 'Token endpoint of the built-in authorization server',
    description:
      'Served when auth.oauth.authorization_server.enabled is true. Public clients only (client_id, no secret): ' +
      'grant_type=authorization_code with code, redirect_uri, code_verifier (PKCE S256) and resource, or ' +
      'grant_type=refresh_token with refresh_token (single use: the answer carries its replacement; under another ' +
      'client_id it is refused and stays unspent). A code or refresh token presented again revokes its grant, ' +
      'including the access tokens already issued for it. Errors in the RFC 6749 form: ' +
      '{"error": "invalid_grant", "error_description": "..."}.',
  })
  @ApiOkResponse({ description: 'New tokens.', schema: { example: TOKEN_EXAMPLE } })
  @ApiBadRequestResponse({
    description: 'RFC 6749 error.',
    schema: {
      example: {
        error: 'invalid_grant',
        error_description: 'The authorization code is unknown, expired or already used',
      },
    },
  })
  token(@Body() body: Record<string, unknown>, @Req() request: Request): Promise<TokenResponse> {
    const form = typeof body === 'object' && body !== null ? body : {};
    const field = (name: string, required = false): string | undefined => {
      const value = form[name];
      if (value === undefined || value === '') {
        if (required) throw new OAuthError('invalid_request', `${name} is required`);
        return undefined;
      }
      if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must be given once, as text`);
      return value;
    };
    const clientId = field('client_id') ?? basicClientId(request);
    if (!clientId) throw new OAuthError('invalid_client', 'client_id is required (public clients send it in the body)');
    switch (field('grant_type', true)) {
      case 'authorization_code':
        return this.grants.exchangeCode({
          code: field('code', true)!,
          clientId,
          redirectUri: field('redirect_uri'),
          codeVerifier: field('code_verifier'),
          resource: field('resource'),
        });
      case 'refresh_token':
        return this.grants.refresh({
          refreshToken: field('refresh_token', true)!,
          clientId,
          resource: field('resource'),
          scope: field('scope'),
        });
      default:
        throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    }
  }
}

/** A client that authenticates with HTTP Basic anyway names itself there; its (absent) secret is not checked. */
function basicClientId(request: Request): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]{1,2048})$/i.exec(request.headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  const clientId = decodeURIComponent(separator === -1 ? decoded : decoded.slice(0, separator));
  return clientId === '' ? undefined : clientId;
}

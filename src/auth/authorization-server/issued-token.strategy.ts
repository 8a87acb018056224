import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { ApiError } from '../../common/api-error';
import { AppConfig } from '../../config/app-config';
import type { Identity } from '../../tenancy/request-context';
import { ApiKeysService } from '../api-keys.service';
import { requireScopes } from '../oauth-resource';
import { grantOfVerifiedToken } from './access-tokens';
import { ActiveGrants } from './active-grants';
import { SIGNING_ALGORITHM, SigningKeys } from './signing-keys';

/**
 * Verifies /mcp access tokens when Toolgate is its own authorization server: signed with its key, issued by it,
 * for this resource (RFC 8707 audience), not expired, with the scopes /mcp needs. The caller is then the API key
 * the token was issued for, looked up on every request (cached, and dropped on every replica at revocation),
 * so revoking or expiring the key stops its tokens at once, not only at the next refresh. So does the revocation
 * of the grant the token descends from (a replayed code or refresh token), through ActiveGrants.
 */
@Injectable()
export class IssuedTokenStrategy extends PassportStrategy(Strategy, 'oauth') {
  constructor(
    private readonly config: AppConfig,
    keys: SigningKeys,
    private readonly apiKeys: ApiKeysService,
    private readonly activeGrants: ActiveGrants,
  ) {
    const oauth = config.auth.oauth;
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      issuer: oauth.issuer,
      audience: oauth.resource,
      algorithms: [SIGNING_ALGORITHM],
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: Math.floor(config.auth.jwt.clock_tolerance / 1000) },
      secretOrKeyProvider: (_request, _token, done) => done(null, keys.current.publicPem),
    });
  }

  async validate(payload: Record<string, unknown>): Promise<Identity> {
    requireScopes(payload, this.config.auth.oauth.scopes);
    const grant = grantOfVerifiedToken(payload);
    const identity = await this.apiKeys.authenticateById(grant.subject);
    if (identity.tenantId !== grant.tenantId) {
      throw ApiError.unauthorized('The access token names another tenant than its API key', 'invalid_token');
    }
    if (!(await this.activeGrants.isActive(grant.grantId))) {
      throw ApiError.unauthorized(
        'The authorization this access token was issued for has been revoked or has expired: authorize again',
        'revoked_token',
      );
    }
    return { ...identity, method: 'oauth' };
  }
}

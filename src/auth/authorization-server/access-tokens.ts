import { Injectable } from '@nestjs/common';
import { sign } from 'jsonwebtoken';
import { Clock } from '../../common/clock';
import { randomToken } from '../../common/ids';
import { ApiError } from '../../common/api-error';
import { AppConfig } from '../../config/app-config';
import type { Identity } from '../../tenancy/request-context';
import { TENANT_ID_PATTERN } from '../../tenancy/tenant-id';
import { SIGNING_ALGORITHM, SigningKeys } from './signing-keys';

/** What an access token of the built-in authorization server stands for. */
export interface AccessGrant {
  apiKeyId: string;
  tenantId: string;
  role: 'admin' | 'member';
  clientId: string;
  /** The authorization the token descends from; /mcp refuses the token once it is revoked. */
  grantId: string;
  resource: string;
  scope: string;
}

/**
 * Short-lived ES256 access tokens (RFC 9068 JWT profile): issuer = this server, audience = the resource the
 * grant was made for, subject = the API key the user authorized with, its tenant and role as claims.
 */
@Injectable()
export class AccessTokens {
  constructor(
    private readonly keys: SigningKeys,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  get lifetimeSeconds(): number {
    return Math.floor(this.config.auth.oauth.authorization_server.access_token_ttl / 1000);
  }

  issue(grant: AccessGrant): string {
    const key = this.keys.current;
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return sign(
      {
        iss: this.config.auth.oauth.issuer,
        aud: grant.resource,
        sub: grant.apiKeyId,
        client_id: grant.clientId,
        grant_id: grant.grantId,
        scope: grant.scope,
        tenant_id: grant.tenantId,
        role: grant.role,
        iat: now,
        exp: now + this.lifetimeSeconds,
        jti: randomToken(24),
      },
      key.privateKey,
      { algorithm: SIGNING_ALGORITHM, keyid: key.kid, header: { alg: SIGNING_ALGORITHM, typ: 'at+jwt' } },
    );
  }
}

/**
 * The API key a verified access token names, the tenant it was issued with, and its grant. The caller then checks
 * that key and grant are still active: the token is only as good as the key and the authorization behind it.
 */
export function grantOfVerifiedToken(
  payload: Record<string, unknown>,
): Pick<Identity, 'tenantId' | 'subject'> & { grantId: string } {
  const { sub, tenant_id: tenantId, grant_id: grantId } = payload;
  if (typeof sub !== 'string' || typeof tenantId !== 'string' || !TENANT_ID_PATTERN.test(tenantId)) {
    throw ApiError.unauthorized('The access token does not name an API key and tenant', 'invalid_token');
  }
  if (typeof grantId !== 'string') {
    throw ApiError.unauthorized('The access token does not name its grant: authorize again', 'invalid_token');
  }
  return { subject: sub, tenantId, grantId };
}

import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/api-error';
import { Clock } from '../../common/clock';
import { randomToken } from '../../common/ids';
import { AppConfig } from '../../config/app-config';
import { ApiKeysService } from '../api-keys.service';
import { AccessTokens } from './access-tokens';
import { OAuthError } from './oauth-error';
import { verifierMatches } from './pkce';

/** Authorization codes are single use and live this long (RFC 6749 section 4.1.2 recommends at most 10 minutes). */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;

/** What the token endpoint answers (RFC 6749 section 5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** An approved authorization request, as the consent page hands it over. */
export interface ApprovedAuthorization {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
  apiKeyId: string;
}

interface CodeRow {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scope: string;
  api_key_id: string;
  expires_at: Date;
}

interface RefreshRow {
  family_id: string;
  client_id: string;
  resource: string;
  scope: string;
  api_key_id: string;
  expires_at: Date;
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Authorization codes and refresh tokens, kept in the database (as hashes) so any replica can complete a flow
 * another one started. A code is spent by the first exchange, good or bad; a refresh token is spent by its
 * first use, and one presented again (a stolen copy, or a replay) revokes its whole family.
 */
@Injectable()
export class Grants {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly apiKeys: ApiKeysService,
    private readonly accessTokens: AccessTokens,
  ) {}

  async issueCode(approved: ApprovedAuthorization): Promise<string> {
    const code = randomToken(43);
    const now = this.clock.now();
    // Codes nobody exchanged are dropped here rather than by a job: the table stays as small as the traffic.
    await this.dataSource.query(`DELETE FROM oauth_authorization_codes WHERE expires_at < $1`, [now]);
    await this.dataSource.query(
      `INSERT INTO oauth_authorization_codes
         (code_hash, client_id, redirect_uri, code_challenge, resource, scope, api_key_id, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        hash(code),
        approved.clientId,
        approved.redirectUri,
        approved.codeChallenge,
        approved.resource,
        approved.scope,
        approved.apiKeyId,
        new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
        now,
      ],
    );
    return code;
  }

  /** The authorization_code grant (RFC 6749 section 4.1.3, with PKCE and RFC 8707 resource). */
  async exchangeCode(request: {
    code: string;
    clientId: string;
    redirectUri: string | undefined;
    codeVerifier: string | undefined;
    resource: string | undefined;
  }): Promise<TokenResponse> {
    // TypeORM answers a DELETE or UPDATE with [rows, affected count].
    const [rows] = (await this.dataSource.query(
      `DELETE FROM oauth_authorization_codes WHERE code_hash = $1
       RETURNING client_id, redirect_uri, code_challenge, resource, scope, api_key_id, expires_at`,
      [hash(request.code)],
    )) as [CodeRow[], number];
    const code = rows[0];
    if (!code || code.expires_at.getTime() <= this.clock.now().getTime()) {
      throw new OAuthError('invalid_grant', 'The authorization code is unknown, expired or already used');
    }
    if (code.client_id !== request.clientId) {
      throw new OAuthError('invalid_grant', 'The authorization code was issued to another client');
    }
    if (request.redirectUri !== code.redirect_uri) {
      throw new OAuthError('invalid_grant', 'redirect_uri must be the one sent with the authorization request');
    }
    if (!request.codeVerifier || !verifierMatches(request.codeVerifier, code.code_challenge)) {
      throw new OAuthError('invalid_grant', 'The code_verifier does not match the code_challenge (PKCE S256)');
    }
    if (request.resource !== undefined && request.resource !== code.resource) {
      throw new OAuthError('invalid_target', 'resource must be the one the authorization was granted for');
    }
    return this.tokens({ ...code, family_id: randomToken(24) });
  }

  /** The refresh_token grant with rotation (OAuth 2.1 section 4.3.1): the old token is spent. */
  async refresh(request: {
    refreshToken: string;
    clientId: string;
    resource: string | undefined;
    scope: string | undefined;
  }): Promise<TokenResponse> {
    const tokenHash = hash(request.refreshToken);
    const [rows] = (await this.dataSource.query(
      `UPDATE oauth_refresh_tokens SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL
       RETURNING family_id, client_id, resource, scope, api_key_id, expires_at`,
      [tokenHash, this.clock.now()],
    )) as [RefreshRow[], number];
    const token = rows[0];
    if (!token) {
      await this.revokeFamilyOfSpent(tokenHash);
      throw new OAuthError('invalid_grant', 'The refresh token is unknown, revoked or already used');
    }
    if (token.expires_at.getTime() <= this.clock.now().getTime()) {
      throw new OAuthError('invalid_grant', 'The refresh token has expired');
    }
    if (token.client_id !== request.clientId) {
      throw new OAuthError('invalid_grant', 'The refresh token was issued to another client');
    }
    if (request.resource !== undefined && request.resource !== token.resource) {
      throw new OAuthError('invalid_target', 'resource must be the one the authorization was granted for');
    }
    if (request.scope !== undefined) {
      const granted = token.scope.split(' ');
      if (!request.scope.split(' ').every((scope) => granted.includes(scope))) {
        throw new OAuthError('invalid_scope', 'A refresh may not ask for scopes beyond the original grant');
      }
    }
    return this.tokens(token);
  }

  /** A spent refresh token presented again: every token of its family is revoked (RFC 9700 section 4.14.2). */
  private async revokeFamilyOfSpent(tokenHash: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM oauth_refresh_tokens WHERE family_id IN
         (SELECT family_id FROM oauth_refresh_tokens WHERE token_hash = $1 AND used_at IS NOT NULL)`,
      [tokenHash],
    );
  }

  /** New tokens for a grant, once the API key behind it is found still active. */
  private async tokens(grant: Omit<RefreshRow, 'expires_at'>): Promise<TokenResponse> {
    const identity = await this.apiKeys.authenticateById(grant.api_key_id).catch((error: unknown) => {
      if (error instanceof ApiError) throw new OAuthError('invalid_grant', `${error.message}: authorize again`);
      throw error;
    });
    const refreshToken = `tgr_${randomToken(43)}`;
    const now = this.clock.now();
    // Spent tokens are kept until they expire, to recognise a replay; past that they are dropped here.
    await this.dataSource.query(`DELETE FROM oauth_refresh_tokens WHERE expires_at < $1`, [now]);
    await this.dataSource.query(
      `INSERT INTO oauth_refresh_tokens
         (token_hash, family_id, client_id, resource, scope, api_key_id, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        hash(refreshToken),
        grant.family_id,
        grant.client_id,
        grant.resource,
        grant.scope,
        grant.api_key_id,
        new Date(now.getTime() + this.config.auth.oauth.authorization_server.refresh_token_ttl),
        now,
      ],
    );
    const accessToken = this.accessTokens.issue({
      apiKeyId: grant.api_key_id,
      tenantId: identity.tenantId,
      role: identity.role,
      clientId: grant.client_id,
      resource: grant.resource,
      scope: grant.scope,
    });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.accessTokens.lifetimeSeconds,
      refresh_token: refreshToken,
      scope: grant.scope,
    };
  }
}

import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../common/api-error';
import { Clock } from '../../common/clock';
import { randomToken } from '../../common/ids';
import { AppConfig } from '../../config/app-config';
import { ApiKeysService } from '../api-keys.service';
import { AccessTokens } from './access-tokens';
import { ActiveGrants } from './active-grants';
import { AuthorizationCodeRepository, CodeRow } from './authorization-code.repository';
import { OAuthClients } from './oauth-clients';
import { OAuthError } from './oauth-error';
import { verifierMatches } from './pkce';
import { RefreshRow, RefreshTokenRepository } from './refresh-token.repository';

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

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Authorization codes and refresh tokens, kept in the database (as hashes) so any replica can complete a flow
 * another one started. A code is spent by the first exchange, good or bad; a refresh token by its first use
 * with its own client. A code or refresh token presented again (a stolen copy, or a replay) revokes the grant
 * it belongs to: every refresh token descended from it, and the access tokens already issued for it.
 */
@Injectable()
export class Grants {
  constructor(
    private readonly codes: AuthorizationCodeRepository,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly apiKeys: ApiKeysService,
    private readonly accessTokens: AccessTokens,
    private readonly activeGrants: ActiveGrants,
    private readonly clients: OAuthClients,
    private readonly dataSource: DataSource,
  ) {}

  async issueCode(approved: ApprovedAuthorization): Promise<string> {
    const code = randomToken(43);
    const now = this.clock.now();
    // Codes nobody exchanged are dropped here rather than by a job: the table stays as small as the traffic.
    // Spent codes are kept as long as a grant they started may live, so a replay can still revoke it.
    const refreshTtl = this.config.auth.oauth.authorization_server.refresh_token_ttl;
    await this.codes.deleteExpired(now, new Date(now.getTime() - refreshTtl));
    await this.clients.markUsed(approved.clientId, now);
    await this.codes.insert(
      hash(code),
      {
        client_id: approved.clientId,
        redirect_uri: approved.redirectUri,
        code_challenge: approved.codeChallenge,
        resource: approved.resource,
        scope: approved.scope,
        api_key_id: approved.apiKeyId,
        expires_at: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
      },
      now,
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
    const codeHash = hash(request.code);
    const familyId = randomToken(24);
    const now = this.clock.now();
    const exchange = await this.inOneTransaction(async (db) => {
      const code = await this.codes.spend(codeHash, familyId, now, db);
      if (!code) return 'replayed';
      const refusal = this.foreignGrant(code) ?? codeRefusal(code, request, now);
      return refusal ?? this.storeRefreshToken({ ...code, family_id: familyId }, db);
    });
    if (exchange === 'replayed') {
      // A code presented twice: the tokens issued for its first exchange are revoked (RFC 6749 section 4.1.2).
      const grantId = await this.codes.grantOfSpent(codeHash);
      if (grantId) await this.activeGrants.revoke(grantId);
      throw new OAuthError('invalid_grant', 'The authorization code is unknown, expired or already used');
    }
    return this.tokens(exchange);
  }

  /** The refresh_token grant with rotation (OAuth 2.1 section 4.3.1): the old token is spent. */
  async refresh(request: {
    refreshToken: string;
    clientId: string;
    resource: string | undefined;
    scope: string | undefined;
  }): Promise<TokenResponse> {
    const tokenHash = hash(request.refreshToken);
    const now = this.clock.now();
    const rotation = await this.inOneTransaction(async (db) => {
      const token = await this.refreshTokens.spend(tokenHash, request.clientId, now, db);
      if (!token) return 'replayed';
      const refusal = this.foreignGrant(token) ?? refreshRefusal(token, request, now);
      return refusal ?? this.storeRefreshToken(token, db);
    });
    if (rotation === 'replayed') {
      // A spent token presented again: its whole grant is revoked, refresh and access tokens (RFC 9700 4.14.2).
      const grantId = await this.refreshTokens.familyOfSpent(tokenHash);
      if (grantId) await this.activeGrants.revoke(grantId);
      throw new OAuthError(
        'invalid_grant',
        'The refresh token is unknown, revoked, already used or was issued to another client',
      );
    }
    return this.tokens(rotation);
  }

  /**
   * Spending a code or refresh token and storing its successor are one transaction, the spent row locked until
   * the successor is stored: a replay of the same code or token waits for that, so the revocation it triggers
   * finds the successor and cannot be undone by it. A refused exchange still commits: the code or token is
   * spent, good or bad. The successor is handed back to be checked and turned into tokens after the commit.
   */
  private async inOneTransaction(
    work: (db: EntityManager) => Promise<OAuthError | 'replayed' | IssuedRefresh>,
  ): Promise<'replayed' | IssuedRefresh> {
    const outcome = await this.dataSource.transaction(work);
    if (outcome instanceof OAuthError) throw outcome;
    return outcome;
  }

  /**
   * A grant is bound to the issuer that made it (MCP 2026-07-28): one made for another resource, by another
   * deployment on the same database or before this server's URL changed, is refused rather than turned into
   * tokens of this issuer.
   */
  private foreignGrant(grant: { resource: string }): OAuthError | undefined {
    if (grant.resource === this.config.auth.oauth.resource) return undefined;
    return new OAuthError(
      'invalid_grant',
      `The grant was made by another authorization server: register and authorize again with ${this.config.auth.oauth.issuer}`,
    );
  }

  private async storeRefreshToken(grant: Omit<RefreshRow, 'expires_at'>, db: EntityManager): Promise<IssuedRefresh> {
    const refreshToken = `tgr_${randomToken(43)}`;
    const now = this.clock.now();
    // Spent tokens are kept until they expire, to recognise a replay; past that they are dropped here.
    await this.refreshTokens.deleteExpired(now, db);
    const ttl = this.config.auth.oauth.authorization_server.refresh_token_ttl;
    await this.refreshTokens.insert(
      hash(refreshToken),
      { ...grant, expires_at: new Date(now.getTime() + ttl) },
      now,
      db,
    );
    return { grant, refreshToken };
  }

  /** The token response, once the API key behind the grant is found still active; otherwise the grant ends. */
  private async tokens({ grant, refreshToken }: IssuedRefresh): Promise<TokenResponse> {
    const identity = await this.apiKeys.authenticateById(grant.api_key_id).catch(async (error: unknown) => {
      if (!(error instanceof ApiError)) throw error;
      await this.activeGrants.revoke(grant.family_id);
      throw new OAuthError('invalid_grant', `${error.message}: authorize again`);
    });
    const accessToken = this.accessTokens.issue({
      apiKeyId: grant.api_key_id,
      tenantId: identity.tenantId,
      role: identity.role,
      clientId: grant.client_id,
      grantId: grant.family_id,
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

/** A refresh token just stored for a grant, not yet handed out. */
interface IssuedRefresh {
  grant: Omit<RefreshRow, 'expires_at'>;
  refreshToken: string;
}

function codeRefusal(
  code: CodeRow,
  request: {
    clientId: string;
    redirectUri: string | undefined;
    codeVerifier: string | undefined;
    resource: string | undefined;
  },
  now: Date,
): OAuthError | undefined {
  if (code.expires_at.getTime() <= now.getTime()) {
    return new OAuthError('invalid_grant', 'The authorization code is unknown, expired or already used');
  }
  if (code.client_id !== request.clientId) {
    return new OAuthError('invalid_grant', 'The authorization code was issued to another client');
  }
  if (request.redirectUri !== code.redirect_uri) {
    return new OAuthError('invalid_grant', 'redirect_uri must be the one sent with the authorization request');
  }
  if (!request.codeVerifier || !verifierMatches(request.codeVerifier, code.code_challenge)) {
    return new OAuthError('invalid_grant', 'The code_verifier does not match the code_challenge (PKCE S256)');
  }
  if (request.resource !== undefined && request.resource !== code.resource) {
    return new OAuthError('invalid_target', 'resource must be the one the authorization was granted for');
  }
  return undefined;
}

function refreshRefusal(
  token: RefreshRow,
  request: { resource: string | undefined; scope: string | undefined },
  now: Date,
): OAuthError | undefined {
  if (token.expires_at.getTime() <= now.getTime()) {
    return new OAuthError('invalid_grant', 'The refresh token has expired');
  }
  if (request.resource !== undefined && request.resource !== token.resource) {
    return new OAuthError('invalid_target', 'resource must be the one the authorization was granted for');
  }
  const granted = token.scope.split(' ');
  if (request.scope !== undefined && !request.scope.split(' ').every((scope) => granted.includes(scope))) {
    return new OAuthError('invalid_scope', 'A refresh may not ask for scopes beyond the original grant');
  }
  return undefined;
}

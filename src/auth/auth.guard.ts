import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard as PassportAuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { decode } from 'jsonwebtoken';
import { ApiError } from '../common/api-error';
import { AppConfig } from '../config/app-config';
import { Identity, RequestContext } from '../tenancy/request-context';
import { API_KEY_PREFIX } from './api-key.secret';
import { ApiKeysService } from './api-keys.service';
import { ADMIN_ROUTE, OAUTH_RESOURCE_ROUTE, PUBLIC_ROUTE } from './auth.decorators';
import { jwtConfigured } from './jwt.strategy';
import { oauthConfigured, OAuthConfig, withChallenge } from './oauth-resource';

/** Passport's JWT guard, with its failures turned into clear 401s in our envelope. */
class JwtPassportGuard extends PassportAuthGuard('jwt') {
  override handleRequest<T>(error: unknown, identity: T, info: unknown): T {
    return verifiedIdentity(error, identity, info);
  }
}

/** The same for OAuth access tokens on protected-resource routes. */
class OAuthPassportGuard extends PassportAuthGuard('oauth') {
  override handleRequest<T>(error: unknown, identity: T, info: unknown): T {
    return verifiedIdentity(error, identity, info);
  }
}

function verifiedIdentity<T>(error: unknown, identity: T, info: unknown): T {
  if (error instanceof ApiError) throw error;
  // Passport reports a failure to find the signing key as `info`; ours say why (e.g. the issuer is down).
  if (info instanceof ApiError) throw info;
  if (!identity) {
    const reason = info instanceof Error ? info.message : 'the token could not be verified';
    const code = info instanceof Error && info.name === 'TokenExpiredError' ? 'expired_token' : 'invalid_token';
    throw ApiError.unauthorized(`Invalid bearer token: ${reason}`, code);
  }
  return identity;
}

export const AGENT_PROFILE_HEADER = 'x-agent-profile';
const AGENT_PROFILE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** Request fields the logger reads (the tenant) once the guard has verified the caller. */
export interface AuthenticatedRequest extends Request {
  identity?: Identity;
}

/**
 * The global guard: every route needs a verified credential unless marked @Public(). API keys (`tg_…`)
 * are checked against the database; anything else is verified as a JWT when JWT auth is configured.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly jwtGuard?: JwtPassportGuard;
  private readonly oauthGuard?: OAuthPassportGuard;
  private readonly oauth: OAuthConfig;

  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    private readonly context: RequestContext,
    config: AppConfig,
  ) {
    if (jwtConfigured(config.auth.jwt)) this.jwtGuard = new JwtPassportGuard();
    this.oauth = config.auth.oauth;
    if (oauthConfigured(this.oauth)) this.oauthGuard = new OAuthPassportGuard();
  }

  async canActivate(execution: ExecutionContext): Promise<boolean> {
    const targets = [execution.getHandler(), execution.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const request = execution.switchToHttp().getRequest<AuthenticatedRequest>();
    const oauthGuard = this.reflector.getAllAndOverride<boolean>(OAUTH_RESOURCE_ROUTE, targets)
      ? this.oauthGuard
      : undefined;
    const identity = oauthGuard
      ? await this.authenticate(request, execution, oauthGuard).catch((error: unknown) => {
          throw error instanceof ApiError ? withChallenge(error, this.oauth) : error;
        })
      : await this.authenticate(request, execution, this.jwtGuard).catch((error: unknown) => {
          throw this.accessTokenOffResource(request) ?? error;
        });
    request.identity = identity;
    this.context.identity = identity;
    if (this.reflector.getAllAndOverride<boolean>(ADMIN_ROUTE, targets) && identity.role !== 'admin') {
      throw ApiError.forbidden('This route is for admins only', 'admin_required');
    }
    return true;
  }

  /**
   * A refused credential that is an access token of the OAuth issuer gets a 401 that says what it is good for:
   * "Invalid API key" would send its holder looking for a fault in the token. Its claims are read unverified,
   * to choose the message only; nothing is granted on them.
   */
  private accessTokenOffResource(request: Request): ApiError | undefined {
    if (!this.oauthGuard) return undefined;
    const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    const claims = token ? decode(token, { json: true }) : null;
    if (claims?.iss !== this.oauth.issuer) return undefined;
    return ApiError.unauthorized(
      `This is an OAuth access token for the MCP gateway (${this.oauth.resource ?? '/mcp'}); /v1 routes take an API key (tg_...) or a JWT of auth.jwt`,
      'wrong_token_type',
    );
  }

  /** `tokenGuard` verifies whatever is not an API key: `auth.jwt` tokens, or OAuth access tokens on /mcp. */
  private async authenticate(
    request: Request,
    execution: ExecutionContext,
    tokenGuard: JwtPassportGuard | OAuthPassportGuard | undefined,
  ): Promise<Identity> {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match)
      throw ApiError.unauthorized(
        'Missing bearer credential: send "Authorization: Bearer <API key or JWT>"',
        'missing_credentials',
      );
    const token = match[1];
    if (token.startsWith(API_KEY_PREFIX)) {
      const identity = await this.apiKeys.authenticate(token);
      return { ...identity, agentProfile: agentProfileHeader(request) };
    }
    if (!tokenGuard) throw ApiError.unauthorized('Invalid API key');
    await tokenGuard.canActivate(execution);
    return request.user as Identity;
  }
}

/** API-key callers name their agent profile in a header; JWT callers carry it as a claim. */
function agentProfileHeader(request: Request): string | undefined {
  const value = request.headers[AGENT_PROFILE_HEADER];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !AGENT_PROFILE_PATTERN.test(value)) {
    throw ApiError.invalid(
      'X-Agent-Profile must be a single profile name of letters, digits, "_", ".", ":" or "-"',
      'X-Agent-Profile',
    );
  }
  return value;
}

import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { passportJwtSecret } from 'jwks-rsa';
import { ExtractJwt, Strategy, StrategyOptionsWithoutRequest } from 'passport-jwt';
import { ApiError } from '../common/api-error';
import { AppConfig } from '../config/app-config';
import type { Identity } from '../tenancy/request-context';
import { TENANT_ID_PATTERN, TENANT_ID_RULE } from '../tenancy/tenant-id';

type JwtConfig = AppConfig['auth']['jwt'];

export function jwtConfigured(jwt: JwtConfig): boolean {
  return Boolean(jwt.secret || jwt.public_key || jwt.jwks_url);
}

/** Verifies bearer JWTs: HMAC with a shared secret, RSA or ECDSA with a public key or a (cached) JWKS URL. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(private readonly config: AppConfig) {
    super(strategyOptions(config.auth.jwt));
  }

  validate(payload: Record<string, unknown>): Identity {
    return identityFromClaims(payload, this.config.auth.jwt);
  }
}

/** The caller a verified token names, by the claims `auth.jwt` configures (shared with OAuth access tokens). */
export function identityFromClaims(payload: Record<string, unknown>, jwt: JwtConfig): Identity {
  checkTokenTimes(payload, jwt);
  const tenantId = payload[jwt.tenant_claim];
  if (typeof tenantId !== 'string' || tenantId === '') {
    throw ApiError.unauthorized(`The token has no '${jwt.tenant_claim}' claim naming the tenant`, 'invalid_token');
  }
  // The same rule as for API keys: a tenant id no key could carry would scope data nobody else can name.
  if (!TENANT_ID_PATTERN.test(tenantId)) {
    throw ApiError.unauthorized(`The token's '${jwt.tenant_claim}' claim must be ${TENANT_ID_RULE}`, 'invalid_token');
  }
  const roles = payload[jwt.roles_claim];
  const roleList = Array.isArray(roles) ? roles : typeof roles === 'string' ? roles.split(/[\s,]+/) : [];
  const profile = payload[jwt.agent_profile_claim];
  return {
    tenantId,
    role: roleList.includes(jwt.admin_role) ? 'admin' : 'member',
    subject: typeof payload.sub === 'string' ? payload.sub : 'jwt',
    method: 'jwt',
    agentProfile: typeof profile === 'string' && profile !== '' ? profile : undefined,
  };
}

/**
 * The verifier checks `exp` and `nbf` only when present and never looks at `iat`: a token without an
 * expiry, one minted with a clock far ahead (so it outlives its intended lifetime), or one whose expiry lies
 * further away than auth.jwt.max_token_lifetime, is refused here.
 * Compared with the same wall clock the verifier uses for `exp`.
 */
function checkTokenTimes(payload: Record<string, unknown>, jwt: JwtConfig): void {
  if (jwt.require_exp && payload.exp === undefined) {
    throw ApiError.unauthorized(
      "The token has no 'exp' claim: tokens must carry an expiry (auth.jwt.require_exp)",
      'invalid_token',
    );
  }
  const toleranceSeconds = Math.floor(jwt.clock_tolerance / 1000);
  // Real time, not Clock: the verifier checks `exp` and `nbf` against the wall clock, and `iat` must agree.
  const now = Date.now() / 1000;
  if (payload.iat !== undefined) {
    if (typeof payload.iat !== 'number' || !Number.isFinite(payload.iat)) {
      throw ApiError.unauthorized("The token's 'iat' claim must be a number of seconds", 'invalid_token');
    }
    if (payload.iat > now + toleranceSeconds) {
      throw ApiError.unauthorized(
        `The token's 'iat' claim lies in the future, beyond the ${toleranceSeconds} s clock tolerance (auth.jwt.clock_tolerance)`,
        'invalid_token',
      );
    }
  }
  checkLifetime(payload, jwt, now, toleranceSeconds);
}

/** Refuses a token meant to live longer than auth.jwt.max_token_lifetime, by its `iat` or from now. */
function checkLifetime(payload: Record<string, unknown>, jwt: JwtConfig, now: number, toleranceSeconds: number): void {
  // The verifier has already refused an `exp` that is not a number; an absent one was allowed by require_exp.
  if (typeof payload.exp !== 'number') return;
  const maxSeconds = Math.floor(jwt.max_token_lifetime / 1000);
  const issued = typeof payload.iat === 'number' ? payload.iat : now;
  const lifetime = payload.exp - Math.min(issued, now);
  if (!(lifetime <= maxSeconds + toleranceSeconds)) {
    throw ApiError.unauthorized(
      `The token lives longer than the ${maxSeconds} s allowed (auth.jwt.max_token_lifetime)`,
      'invalid_token',
    );
  }
}

function strategyOptions(jwt: JwtConfig): StrategyOptionsWithoutRequest {
  const base = {
    jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
    issuer: jwt.issuer,
    audience: jwt.audience,
    ignoreExpiration: false,
    jsonWebTokenOptions: { clockTolerance: Math.floor(jwt.clock_tolerance / 1000) },
  };
  if (jwt.jwks_url) {
    return {
      ...base,
      algorithms: jwt.algorithms ?? ['RS256', 'ES256'],
      secretOrKeyProvider: passportJwtSecret({
        jwksUri: jwt.jwks_url,
        cache: true,
        cacheMaxAge: jwt.jwks_cache_ttl,
        rateLimit: true,
        jwksRequestsPerMinute: 10,
      }),
    };
  }
  if (jwt.public_key) {
    return { ...base, algorithms: jwt.algorithms ?? ['RS256', 'ES256'], secretOrKey: jwt.public_key };
  }
  return { ...base, algorithms: jwt.algorithms ?? ['HS256'], secretOrKey: jwt.secret! };
}

import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { passportJwtSecret } from 'jwks-rsa';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { ApiError } from '../common/api-error';
import { readBoundedText } from '../common/bounded-body';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import type { Identity } from '../tenancy/request-context';
import { identityFromClaims } from './jwt.strategy';
import { OAuthConfig, requireScopes } from './oauth-resource';

type KeyProvider = ReturnType<typeof passportJwtSecret>;

const DISCOVERY_TIMEOUT_MS = 5_000;
const DISCOVERY_RETRY_MS = 10_000;
/** An issuer's metadata document is a few KB; reading stops well past that. */
const MAX_METADATA_BYTES = 1_048_576;

/**
 * Verifies OAuth access tokens for /mcp: signed by the configured issuer's keys, issued by it, and bound to
 * this resource by audience (RFC 8707), so a token minted for another service is no good here. The claims
 * name the caller exactly as for `auth.jwt` tokens.
 */
@Injectable()
export class OAuthStrategy extends PassportStrategy(Strategy, 'oauth') {
  constructor(
    private readonly config: AppConfig,
    clock: Clock,
  ) {
    const oauth = config.auth.oauth;
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      issuer: oauth.issuer,
      audience: oauth.resource,
      algorithms: config.auth.jwt.algorithms ?? ['RS256', 'ES256'],
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: Math.floor(config.auth.jwt.clock_tolerance / 1000) },
      secretOrKeyProvider: issuerKeys(oauth, config.auth.jwt.jwks_cache_ttl, clock),
    });
  }

  validate(payload: Record<string, unknown>): Identity {
    const identity = identityFromClaims(payload, this.config.auth.jwt);
    requireScopes(payload, this.config.auth.oauth.scopes);
    return identity;
  }
}

/**
 * The issuer's JWKS, found through its metadata on first use rather than at start, so Toolgate starts while
 * the authorization server is down. A failed discovery is retried only after a pause: every bearer token,
 * however bogus, reaches this point, and must not make Toolgate hammer the issuer.
 */
function issuerKeys(oauth: OAuthConfig, cacheMaxAge: number, clock: Clock) {
  let keys: Promise<KeyProvider> | undefined;
  let failedAt = 0;
  const load = async (): Promise<KeyProvider> =>
    passportJwtSecret({
      jwksUri: oauth.jwks_url ?? (await discoverJwksUri(oauth.issuer!)),
      cache: true,
      cacheMaxAge,
      rateLimit: true,
      jwksRequestsPerMinute: 10,
    });
  return (request: Request, rawJwtToken: string, done: (error: unknown, key?: string | Buffer) => void) => {
    if (failedAt !== 0 && clock.now().getTime() - failedAt >= DISCOVERY_RETRY_MS) {
      keys = undefined;
      failedAt = 0;
    }
    keys ??= load().catch((error: unknown) => {
      failedAt = clock.now().getTime();
      // Our side cannot check tokens right now: a 503 the client may retry, not a verdict on its token.
      throw ApiError.unavailable(
        `Cannot verify access tokens: ${error instanceof Error ? error.message : 'the issuer is unreachable'}`,
        'issuer_unavailable',
      );
    });
    keys.then(
      (provider) => provider(request, rawJwtToken, done),
      (error: unknown) => done(error),
    );
  };
}

/** OpenID Connect discovery first, then RFC 8414 authorization server metadata: whichever names a `jwks_uri`. */
async function discoverJwksUri(issuer: string): Promise<string> {
  const base = issuer.replace(/\/+$/, '');
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
    const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) }).catch(
      () => undefined,
    );
    if (!response?.ok) continue;
    const metadata = parseJson(await readBoundedText(response, MAX_METADATA_BYTES).catch(() => null)) as
      { jwks_uri?: unknown } | undefined;
    if (typeof metadata?.jwks_uri === 'string') return metadata.jwks_uri;
  }
  throw new Error(
    `no jwks_uri found in the metadata of the issuer ${issuer} (or it is unreachable); set auth.oauth.jwks_url`,
  );
}

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

import type { DynamicModule, Provider } from '@nestjs/common';
import { AccessTokens } from './access-tokens';
import { ActiveGrants } from './active-grants';
import { AuthorizationCodeRepository } from './authorization-code.repository';
import { AuthorizationServerMetadataController } from './authorization-server-metadata.controller';
import { AuthorizationController } from './authorization.controller';
import { Grants } from './grants';
import { IssuedTokenStrategy } from './issued-token.strategy';
import { OAuthClientRepository } from './oauth-client.repository';
import { OAuthClients } from './oauth-clients';
import { RefreshTokenRepository } from './refresh-token.repository';
import { RegistrationController } from './registration.controller';
import { RegistrationLimit } from './registration-limit';
import { RateLimiter } from '../../tools/catalog/rate-limits/rate-limiter';
import { RateLimitCounterRepository } from '../../tools/catalog/rate-limits/rate-limit-counter.repository';
import { SigningKeyRepository } from './signing-key.repository';
import { SigningKeys } from './signing-keys';
import { TokenController } from './token.controller';

/**
 * The built-in OAuth 2.1 authorization server (auth.oauth.authorization_server.enabled), part of the auth module
 * since its tokens stand for API keys. IssuedTokenStrategy takes the place of the external issuer's strategy.
 */
export const AUTHORIZATION_SERVER_PROVIDERS: Provider[] = [
  SigningKeyRepository,
  OAuthClientRepository,
  AuthorizationCodeRepository,
  RefreshTokenRepository,
  // The catalog's rate limiter (stateless over its table), for registrations per source address.
  RateLimitCounterRepository,
  RateLimiter,
  RegistrationLimit,
  SigningKeys,
  AccessTokens,
  OAuthClients,
  ActiveGrants,
  Grants,
  IssuedTokenStrategy,
];

export const AUTHORIZATION_SERVER_CONTROLLERS: NonNullable<DynamicModule['controllers']> = [
  AuthorizationServerMetadataController,
  AuthorizationController,
  TokenController,
  RegistrationController,
];

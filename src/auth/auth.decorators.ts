import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/error-response.dto';

export const PUBLIC_ROUTE = 'toolgate:public';
export const ADMIN_ROUTE = 'toolgate:admin';
export const OAUTH_RESOURCE_ROUTE = 'toolgate:oauth-resource';

/** An open route: no credential needed (health, metrics, docs). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/**
 * A route that is an OAuth protected resource when auth.oauth is configured: non-API-key tokens must be
 * access tokens from that issuer for this resource, and refusals carry the Bearer challenge.
 */
export const OAuthProtectedResource = () => SetMetadata(OAUTH_RESOURCE_ROUTE, true);

/** A route only admins may call; documented as such in Swagger. */
export const Admin = () =>
  applyDecorators(
    SetMetadata(ADMIN_ROUTE, true),
    ApiForbiddenResponse({ description: 'The caller is not an admin.', type: ErrorResponseDto }),
  );

/** Every authenticated route: bearer scheme and the 401 answer in Swagger. */
export const Authenticated = () =>
  applyDecorators(
    ApiBearerAuth(),
    ApiUnauthorizedResponse({
      description: 'Missing, invalid, expired or revoked credential.',
      type: ErrorResponseDto,
    }),
  );

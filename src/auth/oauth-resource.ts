import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { ApiError } from '../common/api-error';
import type { Config } from '../config/config.schema';

export type OAuthConfig = Config['auth']['oauth'];

/** OAuth on /mcp is on once an authorization server is named, or the built-in one is enabled (it names itself). */
export function oauthConfigured(oauth: OAuthConfig): boolean {
  return Boolean(oauth.issuer);
}

export function builtInAuthorizationServer(oauth: OAuthConfig): boolean {
  return oauth.authorization_server.enabled;
}

/** RFC 9728's path-aware address of the metadata for `resource` (…/mcp -> /.well-known/oauth-protected-resource/mcp). */
export function resourceMetadataUrl(oauth: OAuthConfig): string {
  return getOAuthProtectedResourceMetadataUrl(new URL(oauth.resource!));
}

/** The scopes an access token grants: `scope` (RFC 9068, space-separated) or `scp` (an array, some providers). */
export function grantedScopes(payload: Record<string, unknown>): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter((scope) => scope !== '');
  if (Array.isArray(payload.scp)) return payload.scp.filter((scope): scope is string => typeof scope === 'string');
  return [];
}

/** Refuses (403 insufficient_scope) a token that lacks any of the scopes /mcp needs. */
export function requireScopes(payload: Record<string, unknown>, needed: string[]): void {
  const granted = grantedScopes(payload);
  const missing = needed.filter((scope) => !granted.includes(scope));
  if (missing.length > 0) {
    throw ApiError.forbidden(
      `The access token lacks the scope ${missing.join(' ')} needed for /mcp`,
      'insufficient_scope',
    );
  }
}

/**
 * The same error with the Bearer challenge a client follows to the authorization server (RFC 6750 section 3,
 * RFC 9728 section 5.1). Only 401 and 403 carry one; the error code goes in only when the request had a token.
 */
export function withChallenge(error: ApiError, oauth: OAuthConfig): ApiError {
  if (error.status !== 401 && error.status !== 403) return error;
  const params = [`resource_metadata="${resourceMetadataUrl(oauth)}"`, `scope="${oauth.scopes.join(' ')}"`];
  if (error.status === 403) params.unshift('error="insufficient_scope"');
  else if (error.code !== 'missing_credentials') params.unshift('error="invalid_token"');
  const headers = { ...error.headers, 'WWW-Authenticate': `Bearer ${params.join(', ')}` };
  return new ApiError(error.status, error.type, error.message, error.code, error.param, headers);
}

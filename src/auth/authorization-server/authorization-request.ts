import { AppConfig } from '../../config/app-config';
import { OAuthClient, OAuthClients } from './oauth-clients';
import { OAuthError } from './oauth-error';
import { isS256Challenge } from './pkce';
import { redirectUriMatches } from './redirect-uris';

/** The parameters of an authorization request that are carried through the consent page. */
export const REQUEST_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;

const MAX_PARAMETER_LENGTH = 2048;

/** A request whose client and redirect URI are established: any later error goes back to that URI. */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  resource: string;
  scope: string;
  /** The parameters as received, to post back from the consent page. */
  parameters: Record<string, string>;
}

/** Refused before a redirect URI is trusted: shown to the user, never sent anywhere (no open redirect). */
export class UntrustedRequestError extends Error {}

/** Refused after: the client learns why through its redirect URI (RFC 6749 section 4.1.2.1). */
export class RedirectableError extends Error {
  constructor(
    readonly error: OAuthError,
    readonly redirectUri: string,
    readonly state: string | undefined,
  ) {
    super(error.description);
  }
}

/**
 * Checks an authorization request (GET /authorize, and again when the consent form is posted): the client and
 * its redirect URI first, then PKCE S256 (required), the RFC 8707 resource (this /mcp) and the scope.
 */
export async function checkAuthorizationRequest(
  input: Record<string, unknown>,
  clients: OAuthClients,
  config: AppConfig,
): Promise<AuthorizationRequest> {
  const parameters: Record<string, string> = {};
  for (const name of REQUEST_PARAMETERS) {
    const value = input[name];
    if (value === undefined || value === '') continue;
    // A repeated parameter arrives as an array: RFC 6749 section 3.1 says it must not be repeated.
    if (typeof value !== 'string' || value.length > MAX_PARAMETER_LENGTH) {
      throw new UntrustedRequestError(
        `The parameter ${name} must be given once, as text of at most ${MAX_PARAMETER_LENGTH} characters`,
      );
    }
    parameters[name] = value;
  }
  const clientId = parameters.client_id;
  if (!clientId) throw new UntrustedRequestError('The request has no client_id');
  let client: OAuthClient | undefined;
  try {
    client = await clients.find(clientId);
  } catch (error) {
    if (error instanceof OAuthError) throw new UntrustedRequestError(error.description);
    throw error;
  }
  if (!client) throw new UntrustedRequestError(`No client is registered as ${clientId}`);
  // Always required (MCP clients always send it), so the token request can be held to the same value.
  const redirectUri = parameters.redirect_uri;
  if (!redirectUri) throw new UntrustedRequestError('The request has no redirect_uri');
  if (!client.redirectUris.some((registered) => redirectUriMatches(registered, redirectUri))) {
    throw new UntrustedRequestError(`The redirect_uri ${redirectUri} is not registered for this client`);
  }

  // Shown on the page, not sent back: a client that asks for another response type (token, say) would otherwise
  // have its registered URI answer at once, with no consent, which makes any registered URI an open redirect.
  if (parameters.response_type !== 'code') {
    throw new UntrustedRequestError('Unsupported response_type: this server answers response_type=code only');
  }

  const state = parameters.state;
  const refuse = (error: OAuthError) => new RedirectableError(error, redirectUri, state);
  if (!parameters.code_challenge) {
    throw refuse(new OAuthError('invalid_request', 'code_challenge is required (PKCE with S256)'));
  }
  if (parameters.code_challenge_method !== 'S256') {
    throw refuse(new OAuthError('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)'));
  }
  if (!isS256Challenge(parameters.code_challenge)) {
    throw refuse(new OAuthError('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier'));
  }
  const oauth = config.auth.oauth;
  const resource = parameters.resource ?? oauth.resource!;
  if (resource !== oauth.resource) {
    throw refuse(new OAuthError('invalid_target', `This server issues tokens for ${oauth.resource} only`));
  }
  const requested = parameters.scope?.split(' ').filter((scope) => scope !== '') ?? [];
  const unknown = requested.filter((scope) => !oauth.scopes.includes(scope));
  if (unknown.length > 0) {
    throw refuse(
      new OAuthError('invalid_scope', `Unknown scope ${unknown.join(' ')}; supported: ${oauth.scopes.join(' ')}`),
    );
  }
  return {
    client,
    redirectUri,
    state,
    codeChallenge: parameters.code_challenge,
    resource,
    // Every configured scope is needed for /mcp, so a grant carries them all whatever subset was asked for.
    scope: oauth.scopes.join(' '),
    parameters,
  };
}

/** The redirect URI with the response parameters added to its query (any query it has is kept). */
export function redirectWith(redirectUri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

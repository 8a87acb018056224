import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { randomToken } from '../../common/ids';
import { AppConfig } from '../../config/app-config';
import { GuardedFetch, guardedFetch, SsrfRefusedError } from '../../tools/mcp/ssrf-guarded-fetch';
import { OAuthError } from './oauth-error';
import { isLoopbackRedirect, redirectUriProblem } from './redirect-uris';
import { readBoundedText } from '../../common/bounded-body';
import { OAuthClientRepository } from './oauth-client.repository';
import { RegistrationLimit } from './registration-limit';

/** A client known to the authorization server: registered (RFC 7591) or described by its metadata document. */
export interface OAuthClient {
  clientId: string;
  clientName: string | null;
  clientUri: string | null;
  redirectUris: string[];
}

/** What POST /register answers (RFC 7591 section 3.2.1). Every client is public: PKCE stands in for a secret. */
export interface ClientRegistration {
  client_id: string;
  client_id_issued_at: number;
  application_type?: ApplicationType;
  client_name?: string;
  client_uri?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
}

/** OpenID Connect Dynamic Client Registration's application_type, which MCP clients must send (2026-07-28). */
type ApplicationType = 'web' | 'native';
const APPLICATION_TYPES: ApplicationType[] = ['web', 'native'];
const MAX_REDIRECT_URIS = 10;
const MAX_NAME_LENGTH = 200;
const GRANT_TYPES = ['authorization_code', 'refresh_token'];
/**
 * Client metadata is small: a registration or a Client ID Metadata Document larger than this is refused (the
 * CIMD draft suggests 5 KB), which bounds what an open registration endpoint lets anyone store.
 */
const MAX_METADATA_BYTES = 5 * 1024;
const METADATA_TIMEOUT_MS = 5_000;

@Injectable()
export class OAuthClients implements OnApplicationShutdown {
  /**
   * Anyone may make Toolgate fetch a client_id URL, so these fetches reach public addresses only, whatever
   * mcp.allow_private_networks allows MCP sources (an admin's choice); client_id_metadata_allow_local lifts that
   * for development and tests.
   */
  private readonly outbound: GuardedFetch;

  constructor(
    private readonly clients: OAuthClientRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly registrationLimit: RegistrationLimit,
  ) {
    const allowLocal = config.auth.oauth.authorization_server.client_id_metadata_allow_local;
    this.outbound = guardedFetch({ allowPrivateNetworks: allowLocal, allowLinkLocal: false });
  }

  onApplicationShutdown(): Promise<void> {
    return this.outbound.close();
  }

  /**
   * Dynamic Client Registration: counts the registration against its source address's rate limit, validates the
   * metadata and stores the client. Clients registered and never authorized expire (unused_client_ttl): they are
   * dropped here, so the table stays as small as the traffic.
   */
  async register(body: unknown, sourceAddress: string | undefined): Promise<ClientRegistration> {
    await this.registrationLimit.take(sourceAddress);
    if (Buffer.byteLength(JSON.stringify(body ?? null)) > MAX_METADATA_BYTES) {
      throw new OAuthError('invalid_client_metadata', `The client metadata exceeds ${MAX_METADATA_BYTES} bytes`);
    }
    const metadata = clientMetadata(body);
    const applicationType = metadata.application_type as ApplicationType | undefined;
    const fields: [string, string[]][] = [
      ['grant_types', GRANT_TYPES],
      ['response_types', ['code']],
    ];
    for (const [field, allowed] of fields) {
      const value = metadata[field];
      if (value === undefined) continue;
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && allowed.includes(item))) {
        throw new OAuthError('invalid_client_metadata', `${field} may only list ${allowed.join(', ')}`);
      }
    }
    const client: OAuthClient = { clientId: `tgc_${randomToken(24)}`, ...describedClient(metadata) };
    const issuedAt = this.clock.now();
    await this.clients.deleteUnused(this.unusedSince(issuedAt));
    await this.clients.insert(
      {
        client_id: client.clientId,
        client_name: client.clientName,
        client_uri: client.clientUri,
        redirect_uris: client.redirectUris,
      },
      issuedAt,
    );
    return {
      client_id: client.clientId,
      client_id_issued_at: Math.floor(issuedAt.getTime() / 1000),
      ...(applicationType !== undefined && { application_type: applicationType }),
      ...(client.clientName !== null && { client_name: client.clientName }),
      ...(client.clientUri !== null && { client_uri: client.clientUri }),
      redirect_uris: client.redirectUris,
      grant_types: GRANT_TYPES,
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  /** The client a `client_id` names: a registered one, or the document at that URL; undefined when unknown. */
  async find(clientId: string): Promise<OAuthClient | undefined> {
    if (/^https?:\/\//.test(clientId)) return this.fromMetadataDocument(clientId);
    if (clientId.length > 64) return undefined;
    const row = await this.clients.find(clientId, this.unusedSince(this.clock.now()));
    return (
      row && {
        clientId: row.client_id,
        clientName: row.client_name,
        clientUri: row.client_uri,
        redirectUris: row.redirect_uris,
      }
    );
  }

  /** Records a user's approval of a registered client, which keeps it from expiring unused. */
  markUsed(clientId: string, now: Date): Promise<void> {
    return this.clients.markUsed(clientId, now);
  }

  private unusedSince(now: Date): Date {
    return new Date(now.getTime() - this.config.auth.oauth.authorization_server.unused_client_ttl);
  }

  /**
   * Client ID Metadata Documents: the client_id is an https URL serving the client's metadata as JSON. Fetched
   * through the SSRF-guarded fetch (public addresses only, every connection checked), without redirects, in
   * bounded time and size; the document must name itself as client_id.
   */
  private async fromMetadataDocument(clientId: string): Promise<OAuthClient> {
    const settings = this.config.auth.oauth.authorization_server;
    if (!settings.client_id_metadata_documents) {
      throw new OAuthError(
        'invalid_client',
        'This server does not accept URL client ids (client ID metadata documents)',
      );
    }
    const url = metadataDocumentUrl(clientId, settings.client_id_metadata_allow_local);
    let text: string;
    try {
      const response = await this.outbound.fetch(url, {
        headers: { Accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(METADATA_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`it answered HTTP ${response.status}`);
      const body = await readBoundedText(response, MAX_METADATA_BYTES);
      if (body === null) throw new Error(`the document exceeds ${MAX_METADATA_BYTES} bytes`);
      text = body;
    } catch (error) {
      const reason =
        error instanceof SsrfRefusedError
          ? 'it is not on a public address'
          : error instanceof Error
            ? error.message
            : 'unreachable';
      throw new OAuthError('invalid_client', `Cannot fetch the client metadata document ${clientId}: ${reason}`);
    }
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      throw new OAuthError('invalid_client', `The client metadata document ${clientId} is not JSON`);
    }
    let metadata: Record<string, unknown>;
    try {
      metadata = clientMetadata(document);
    } catch (error) {
      throw new OAuthError(
        'invalid_client',
        `The client metadata document ${clientId} is invalid: ${(error as OAuthError).description}`,
      );
    }
    if (metadata.client_id !== clientId) {
      throw new OAuthError('invalid_client', `The client metadata document ${clientId} must name itself as client_id`);
    }
    return { clientId, ...describedClient(metadata) };
  }
}

/** The body of a registration or a metadata document: an object with valid redirect URIs. */
function clientMetadata(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthError('invalid_client_metadata', 'The client metadata must be a JSON object');
  }
  const metadata = body as Record<string, unknown>;
  const uris = metadata.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} redirect URIs`);
  }
  const applicationType = metadata.application_type;
  if (applicationType !== undefined && !APPLICATION_TYPES.includes(applicationType as ApplicationType)) {
    throw new OAuthError('invalid_client_metadata', `application_type must be ${APPLICATION_TYPES.join(' or ')}`);
  }
  for (const uri of uris) {
    if (typeof uri !== 'string') throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be strings');
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `The redirect URI ${uri.slice(0, 200)} ${problem}`);
    // OpenID Connect's rule, which MCP clients now expect: a web client is served from a remote host, so a
    // loopback redirect marks a native one. Without application_type (older clients) both kinds are accepted.
    if (applicationType === 'web' && isLoopbackRedirect(uri)) {
      throw new OAuthError(
        'invalid_redirect_uri',
        `The redirect URI ${uri.slice(0, 200)} is on a loopback host, which a web client may not use: register with application_type native`,
      );
    }
  }
  for (const field of ['client_name', 'client_uri'] as const) {
    const value = metadata[field];
    if (value !== undefined && (typeof value !== 'string' || value.length > MAX_NAME_LENGTH)) {
      throw new OAuthError(
        'invalid_client_metadata',
        `${field} must be a string of at most ${MAX_NAME_LENGTH} characters`,
      );
    }
  }
  if (typeof metadata.client_uri === 'string' && !metadata.client_uri.startsWith('https://')) {
    throw new OAuthError('invalid_client_metadata', 'client_uri must be an https URL');
  }
  return metadata;
}

function describedClient(metadata: Record<string, unknown>): Omit<OAuthClient, 'clientId'> {
  return {
    clientName: typeof metadata.client_name === 'string' && metadata.client_name !== '' ? metadata.client_name : null,
    clientUri: typeof metadata.client_uri === 'string' ? metadata.client_uri : null,
    redirectUris: [...new Set(metadata.redirect_uris as string[])],
  };
}

/** A URL client id must be an https URL with a path and no fragment or user information. */
function metadataDocumentUrl(clientId: string, allowHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new OAuthError('invalid_client', 'The client_id is not a valid URL');
  }
  const schemeAllowed = url.protocol === 'https:' || (allowHttp && url.protocol === 'http:');
  if (!schemeAllowed || url.pathname === '/' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new OAuthError(
      'invalid_client',
      'A URL client_id must be an https URL with a path, without fragment or credentials',
    );
  }
  return url;
}

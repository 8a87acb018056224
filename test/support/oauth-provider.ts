import { createHash, randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWTPayload } from 'jose';
import { rsaSigningKey, signRs256, SigningKey } from './jwks';

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string | null;
  scope: string | null;
}

/**
 * A minimal OpenID provider on loopback for the MCP authorization flow: discovery, JWKS, dynamic client
 * registration, an /authorize that approves at once (no login page) and a /token that checks PKCE (S256) and
 * issues an RS256 access token whose audience is the requested `resource` (RFC 8707).
 */
export class OAuthProvider {
  private readonly codes = new Map<string, PendingCode>();
  /** Every `resource` parameter the token endpoint was asked for, in order. */
  readonly tokenResources: (string | null)[] = [];

  private constructor(
    private readonly server: Server,
    private readonly key: SigningKey,
    readonly issuer: string,
    private readonly claims: JWTPayload,
  ) {}

  /** `claims` go into every issued token (e.g. the tenant claim). */
  static async start(claims: JWTPayload): Promise<OAuthProvider> {
    const key = await rsaSigningKey('idp-key');
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const provider = new OAuthProvider(server, key, `http://127.0.0.1:${port}`, claims);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      provider.handle(request, response).catch(() => response.writeHead(500).end());
    });
    return provider;
  }

  /** A token signed by this provider, as if issued to some client: for the refusal cases. */
  mint(options: { audience?: string; scope?: string; expiresIn?: number }): Promise<string> {
    const claims = { ...this.claims, sub: 'user-1', ...(options.scope ? { scope: options.scope } : {}) };
    return signRs256(this.key, claims, {
      issuer: this.issuer,
      audience: options.audience,
      expiresIn: options.expiresIn,
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.issuer);
    switch (`${request.method} ${url.pathname}`) {
      case 'GET /.well-known/openid-configuration':
      case 'GET /.well-known/oauth-authorization-server':
        return json(response, 200, this.metadata());
      case 'GET /jwks':
        return json(response, 200, { keys: [this.key.jwk] });
      case 'POST /register':
        return json(response, 201, {
          ...JSON.parse(await body(request)),
          client_id: `client-${randomUUID()}`,
          client_id_issued_at: Math.floor(Date.now() / 1000),
        });
      case 'GET /authorize':
        return this.authorize(url, response);
      case 'POST /token':
        return this.token(new URLSearchParams(await body(request)), response);
      default:
        response.writeHead(404).end();
    }
  }

  private metadata() {
    return {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      registration_endpoint: `${this.issuer}/register`,
      jwks_uri: `${this.issuer}/jwks`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    };
  }

  private authorize(url: URL, response: ServerResponse): void {
    const query = url.searchParams;
    const redirectUri = query.get('redirect_uri');
    const challenge = query.get('code_challenge');
    if (query.get('response_type') !== 'code' || !redirectUri || !challenge) {
      return json(response, 400, { error: 'invalid_request' });
    }
    if (query.get('code_challenge_method') !== 'S256') return json(response, 400, { error: 'invalid_request' });
    const code = randomUUID();
    this.codes.set(code, {
      clientId: query.get('client_id') ?? '',
      redirectUri,
      challenge,
      resource: query.get('resource'),
      scope: query.get('scope'),
    });
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    const state = query.get('state');
    if (state) target.searchParams.set('state', state);
    response.writeHead(302, { Location: target.toString() }).end();
  }

  private async token(form: URLSearchParams, response: ServerResponse): Promise<void> {
    const pending = this.codes.get(form.get('code') ?? '');
    this.codes.delete(form.get('code') ?? '');
    const verifier = form.get('code_verifier') ?? '';
    const resource = form.get('resource');
    this.tokenResources.push(resource);
    if (
      form.get('grant_type') !== 'authorization_code' ||
      !pending ||
      pending.clientId !== form.get('client_id') ||
      pending.redirectUri !== form.get('redirect_uri') ||
      createHash('sha256').update(verifier).digest('base64url') !== pending.challenge ||
      resource !== pending.resource
    ) {
      return json(response, 400, { error: 'invalid_grant' });
    }
    const scope = pending.scope ?? undefined;
    const accessToken = await this.mint({ audience: resource ?? undefined, scope });
    json(response, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300, scope });
  }
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, JWK, JWTPayload, SignJWT } from 'jose';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface SigningKey {
  kid: string;
  privateKey: PrivateKey;
  jwk: JWK;
}

export async function rsaSigningKey(kid: string): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** An identity provider's JWKS endpoint on loopback, as `auth.jwt.jwks_url` expects. */
export class JwksServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(keys: JWK[]): Promise<JwksServer> {
    const server = createServer((request, response) => {
      if (request.url !== '/.well-known/jwks.json') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    return new JwksServer(server, `http://127.0.0.1:${port}/.well-known/jwks.json`);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }
}

export interface TokenOptions {
  issuer?: string;
  audience?: string;
  /** Seconds from now; negative for a token that has already expired; null for a token without `exp`. */
  expiresIn?: number | null;
  /** Seconds from now the token says it was issued (`iat`); positive for a clock running ahead. */
  issuedIn?: number;
}

export function signRs256(key: SigningKey, claims: JWTPayload, options: TokenOptions = {}): Promise<string> {
  return sign(new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid }), options).sign(key.privateKey);
}

export function signHs256(secret: string, claims: JWTPayload, options: TokenOptions = {}): Promise<string> {
  return sign(new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }), options).sign(new TextEncoder().encode(secret));
}

function sign(jwt: SignJWT, options: TokenOptions): SignJWT {
  const now = Math.floor(Date.now() / 1000);
  jwt.setIssuedAt(now + (options.issuedIn ?? -60));
  if (options.expiresIn !== null) jwt.setExpirationTime(now + (options.expiresIn ?? 300));
  if (options.issuer) jwt.setIssuer(options.issuer);
  if (options.audience) jwt.setAudience(options.audience);
  return jwt;
}

/** A token that claims `alg: none`: no signature at all. */
export function unsignedToken(claims: JWTPayload): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
}

import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { createPrivateKey, createPublicKey, generateKeyPairSync, JsonWebKey, KeyObject } from 'node:crypto';
import { DataSource } from 'typeorm';
import { randomToken } from '../../common/ids';
import { AdvisoryLock, withAdvisoryLock } from '../../database/advisory-locks';
import { DecryptionError, KeyRing, open, seal } from '../../tools/catalog/credentials/credential-cipher';
import { SigningKeyRepository, SigningKeyRow } from './signing-key.repository';

export const SIGNING_ALGORITHM = 'ES256';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  /** The public key as PEM, as the token verifier takes it. */
  publicPem: string;
  /** The public half as published in the JWKS. */
  publicJwk: JsonWebKey & { kid: string; alg: string; use: string };
}

/** Binds a sealed private key to its row: moved under another kid, it no longer opens. */
const aad = (kid: string) => Buffer.from(`toolgate.oauth-signing-key.v1\0${kid}`, 'utf8');

/**
 * The ES256 key the built-in authorization server signs access tokens with. Generated on first start and kept
 * in the database sealed with the credentials encryption key (AES-256-GCM), so every replica signs and verifies
 * with the same key and a database dump alone cannot mint tokens.
 */
@Injectable()
export class SigningKeys implements OnApplicationBootstrap {
  private readonly logger = new Logger('OAuthSigningKeys');
  private key?: SigningKey;

  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: SigningKeyRepository,
    private readonly keyRing: KeyRing,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.key = await withAdvisoryLock(this.dataSource, AdvisoryLock.oauthSigningKey, () => this.loadOrCreate());
  }

  get current(): SigningKey {
    if (!this.key) throw new Error('The OAuth signing key is not loaded yet');
    return this.key;
  }

  private async loadOrCreate(): Promise<SigningKey> {
    const row = await this.keys.newest();
    if (row) {
      const opened = await this.open(row);
      if (opened) return opened;
    }
    return this.create();
  }

  /** The stored key, re-sealed with the current encryption key when it was sealed with an earlier one. */
  private async open(row: SigningKeyRow): Promise<SigningKey | undefined> {
    const encryptionKey = this.keyRing.find(row.encryption_key_id);
    if (!encryptionKey) {
      this.logger.warn(
        `The OAuth signing key ${row.kid} is sealed with encryption key ${row.encryption_key_id}, which is not ` +
          'configured: generating a new signing key (tokens issued before are no longer accepted)',
      );
      return undefined;
    }
    let pem: string;
    try {
      pem = open(
        encryptionKey,
        {
          ciphertext: row.private_key_ciphertext,
          iv: row.private_key_iv,
          authTag: row.private_key_auth_tag,
          keyId: row.encryption_key_id,
        },
        aad(row.kid),
      );
    } catch (error) {
      if (!(error instanceof DecryptionError)) throw error;
      this.logger.warn(`The OAuth signing key ${row.kid} does not decrypt: generating a new signing key`);
      return undefined;
    }
    if (encryptionKey.id !== this.keyRing.current.id) {
      await this.keys.reseal(row.kid, seal(this.keyRing.current, pem, aad(row.kid)));
    }
    const privateKey = createPrivateKey(pem);
    return signingKey(row.kid, privateKey);
  }

  private async create(): Promise<SigningKey> {
    const kid = randomToken(16);
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const key = signingKey(kid, privateKey);
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const sealed = seal(this.keyRing.current, pem, aad(kid));
    await this.keys.insert(kid, SIGNING_ALGORITHM, key.publicJwk, sealed);
    this.logger.log(`Generated the OAuth signing key ${kid} (ES256)`);
    return key;
  }
}

function signingKey(kid: string, privateKey: KeyObject): SigningKey {
  const publicKey = createPublicKey(privateKey);
  const jwk = publicKey.export({ format: 'jwk' });
  const publicPem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  return { kid, privateKey, publicPem, publicJwk: { ...jwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' } };
}

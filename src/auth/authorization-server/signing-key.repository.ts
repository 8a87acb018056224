import { Injectable } from '@nestjs/common';
import type { JsonWebKey } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { SealedValue } from '../../tools/catalog/credentials/credential-cipher';

/** A stored signing key: the public half in clear, the private key sealed. */
export interface SigningKeyRow {
  kid: string;
  public_jwk: JsonWebKey;
  private_key_ciphertext: Buffer;
  private_key_iv: Buffer;
  private_key_auth_tag: Buffer;
  encryption_key_id: string;
}

/** The `oauth_signing_keys` table. */
@Injectable()
export class SigningKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  async newest(): Promise<SigningKeyRow | undefined> {
    const rows: SigningKeyRow[] = await this.dataSource.query(
      `SELECT kid, public_jwk, private_key_ciphertext, private_key_iv, private_key_auth_tag, encryption_key_id
         FROM oauth_signing_keys ORDER BY created_at DESC LIMIT 1`,
    );
    return rows[0];
  }

  async insert(kid: string, algorithm: string, publicJwk: JsonWebKey, sealed: SealedValue): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oauth_signing_keys
         (kid, algorithm, public_jwk, private_key_ciphertext, private_key_iv, private_key_auth_tag, encryption_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [kid, algorithm, JSON.stringify(publicJwk), sealed.ciphertext, sealed.iv, sealed.authTag, sealed.keyId],
    );
  }

  /** The private key sealed again (with the current encryption key). */
  async reseal(kid: string, sealed: SealedValue): Promise<void> {
    await this.dataSource.query(
      `UPDATE oauth_signing_keys SET private_key_ciphertext = $2, private_key_iv = $3, private_key_auth_tag = $4,
              encryption_key_id = $5 WHERE kid = $1`,
      [kid, sealed.ciphertext, sealed.iv, sealed.authTag, sealed.keyId],
    );
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What a refresh token grants, stored by the hash of the token. */
export interface RefreshRow {
  family_id: string;
  client_id: string;
  resource: string;
  scope: string;
  api_key_id: string;
  expires_at: Date;
}

/** The `oauth_refresh_tokens` table. */
@Injectable()
export class RefreshTokenRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(tokenHash: string, token: RefreshRow, now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oauth_refresh_tokens
         (token_hash, family_id, client_id, resource, scope, api_key_id, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        tokenHash,
        token.family_id,
        token.client_id,
        token.resource,
        token.scope,
        token.api_key_id,
        token.expires_at,
        now,
      ],
    );
  }

  /** Marks an unspent token used and answers what it grants; undefined when it is unknown or already spent. */
  async spend(tokenHash: string, now: Date): Promise<RefreshRow | undefined> {
    // TypeORM answers a DELETE or UPDATE with [rows, affected count].
    const [rows] = (await this.dataSource.query(
      `UPDATE oauth_refresh_tokens SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL
       RETURNING family_id, client_id, resource, scope, api_key_id, expires_at`,
      [tokenHash, now],
    )) as [RefreshRow[], number];
    return rows[0];
  }

  /** Deletes every token of the family of this token, if it was already spent. */
  async revokeFamilyOfSpent(tokenHash: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM oauth_refresh_tokens WHERE family_id IN
         (SELECT family_id FROM oauth_refresh_tokens WHERE token_hash = $1 AND used_at IS NOT NULL)`,
      [tokenHash],
    );
  }

  async deleteExpired(now: Date): Promise<void> {
    await this.dataSource.query(`DELETE FROM oauth_refresh_tokens WHERE expires_at < $1`, [now]);
  }
}

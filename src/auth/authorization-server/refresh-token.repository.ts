import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Queryable } from '../../database/database';

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

  async insert(tokenHash: string, token: RefreshRow, now: Date, db: Queryable = this.dataSource): Promise<void> {
    await db.query(
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

  /**
   * Marks an unspent token of this client used and answers what it grants; undefined when it is unknown, already
   * spent, or another client's (which leaves it unspent: presenting it under a wrong client_id costs its owner
   * nothing).
   */
  async spend(
    tokenHash: string,
    clientId: string,
    now: Date,
    db: Queryable = this.dataSource,
  ): Promise<RefreshRow | undefined> {
    // TypeORM answers a DELETE or UPDATE with [rows, affected count].
    const [rows] = (await db.query(
      `UPDATE oauth_refresh_tokens SET used_at = $3 WHERE token_hash = $1 AND client_id = $2 AND used_at IS NULL
       RETURNING family_id, client_id, resource, scope, api_key_id, expires_at`,
      [tokenHash, clientId, now],
    )) as [RefreshRow[], number];
    return rows[0];
  }

  /** The grant (family) of this token, if it was already spent. */
  async familyOfSpent(tokenHash: string): Promise<string | undefined> {
    const rows: { family_id: string }[] = await this.dataSource.query(
      `SELECT family_id FROM oauth_refresh_tokens WHERE token_hash = $1 AND used_at IS NOT NULL`,
      [tokenHash],
    );
    return rows[0]?.family_id;
  }

  /** Deletes every token of a grant: nothing descended from it can be refreshed any more. */
  async deleteFamily(familyId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM oauth_refresh_tokens WHERE family_id = $1`, [familyId]);
  }

  /** Whether the grant still holds an unexpired token: the grant lives as long as its newest refresh token. */
  async familyLive(familyId: string, now: Date): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM oauth_refresh_tokens WHERE family_id = $1 AND expires_at > $2 LIMIT 1`,
      [familyId, now],
    );
    return rows.length > 0;
  }

  async deleteExpired(now: Date, db: Queryable = this.dataSource): Promise<void> {
    await db.query(`DELETE FROM oauth_refresh_tokens WHERE expires_at < $1`, [now]);
  }
}

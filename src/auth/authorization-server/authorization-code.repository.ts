import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Queryable } from '../../database/database';

/** An issued authorization code, stored by the hash of the code. */
export interface CodeRow {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scope: string;
  api_key_id: string;
  expires_at: Date;
}

/** The `oauth_authorization_codes` table. */
@Injectable()
export class AuthorizationCodeRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(codeHash: string, code: CodeRow, now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oauth_authorization_codes
         (code_hash, client_id, redirect_uri, code_challenge, resource, scope, api_key_id, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        codeHash,
        code.client_id,
        code.redirect_uri,
        code.code_challenge,
        code.resource,
        code.scope,
        code.api_key_id,
        code.expires_at,
        now,
      ],
    );
  }

  /**
   * Marks the code spent and answers what it granted: a code is spent by its first exchange, which starts the
   * grant `familyId`. Undefined when the code is unknown or already spent.
   */
  async spend(
    codeHash: string,
    familyId: string,
    now: Date,
    db: Queryable = this.dataSource,
  ): Promise<CodeRow | undefined> {
    // TypeORM answers a DELETE or UPDATE with [rows, affected count].
    const [rows] = (await db.query(
      `UPDATE oauth_authorization_codes SET used_at = $3, family_id = $2 WHERE code_hash = $1 AND used_at IS NULL
       RETURNING client_id, redirect_uri, code_challenge, resource, scope, api_key_id, expires_at`,
      [codeHash, familyId, now],
    )) as [CodeRow[], number];
    return rows[0];
  }

  /** The grant a spent code started, when this code was already spent. */
  async grantOfSpent(codeHash: string): Promise<string | undefined> {
    const rows: { family_id: string }[] = await this.dataSource.query(
      `SELECT family_id FROM oauth_authorization_codes WHERE code_hash = $1 AND used_at IS NOT NULL`,
      [codeHash],
    );
    return rows[0]?.family_id;
  }

  /** Drops unspent codes past their expiry, and spent ones used before `spentBefore`. */
  async deleteExpired(now: Date, spentBefore: Date): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM oauth_authorization_codes WHERE expires_at < $1 AND (used_at IS NULL OR used_at < $2)`,
      [now, spentBefore],
    );
  }
}

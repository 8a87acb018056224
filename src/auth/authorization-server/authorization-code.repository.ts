import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

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

  /** Removes the code and answers what it granted: a code is spent by its first exchange. */
  async take(codeHash: string): Promise<CodeRow | undefined> {
    // TypeORM answers a DELETE or UPDATE with [rows, affected count].
    const [rows] = (await this.dataSource.query(
      `DELETE FROM oauth_authorization_codes WHERE code_hash = $1
       RETURNING client_id, redirect_uri, code_challenge, resource, scope, api_key_id, expires_at`,
      [codeHash],
    )) as [CodeRow[], number];
    return rows[0];
  }

  async deleteExpired(now: Date): Promise<void> {
    await this.dataSource.query(`DELETE FROM oauth_authorization_codes WHERE expires_at < $1`, [now]);
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { SealedValue } from './credential-cipher';

/** A stored credential as its columns hold it. */
export interface CredentialRow {
  tenant_id: string;
  key: string;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
  key_id: string;
  created_at: Date;
  updated_at: Date;
}

export type CredentialNames = Pick<CredentialRow, 'tenant_id' | 'key' | 'created_at' | 'updated_at'>;
export type SealedRow = Pick<CredentialRow, 'tenant_id' | 'key' | 'ciphertext' | 'iv' | 'auth_tag' | 'key_id'>;

/** How many rows each encryption key seals. */
export interface KeyCounts {
  current: number;
  missing: number;
  missing_ids: string[] | null;
}

/**
 * The `tenant_credentials` table, in SQL: sealed bytes and the conditional re-encryption are clearer as
 * statements than through the entity mapping.
 */
@Injectable()
export class CredentialRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Stores or replaces a tenant's sealed value; answers the names and times. */
  async upsert(tenantId: string, key: string, sealed: SealedValue, now: Date): Promise<CredentialNames> {
    const rows: CredentialNames[] = await this.dataSource.query(
      `INSERT INTO tenant_credentials (tenant_id, key, ciphertext, iv, auth_tag, key_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (tenant_id, key) DO UPDATE
         SET ciphertext = EXCLUDED.ciphertext, iv = EXCLUDED.iv, auth_tag = EXCLUDED.auth_tag,
             key_id = EXCLUDED.key_id, updated_at = EXCLUDED.updated_at
       RETURNING tenant_id, key, created_at, updated_at`,
      [tenantId, key, sealed.ciphertext, sealed.iv, sealed.authTag, sealed.keyId, now],
    );
    return rows[0];
  }

  /** Up to `limit` of the tenant's credential names past `cursor`, in byte order of the key name. */
  namesOf(tenantId: string, limit: number, ascending: boolean, cursor?: string): Promise<CredentialNames[]> {
    const values: unknown[] = [tenantId, limit];
    let condition = '';
    if (cursor !== undefined) {
      values.push(cursor);
      condition = `AND key COLLATE "C" ${ascending ? '>' : '<'} $3`;
    }
    return this.dataSource.query(
      `SELECT tenant_id, key, created_at, updated_at FROM tenant_credentials
       WHERE tenant_id = $1 ${condition}
       ORDER BY key COLLATE "C" ${ascending ? 'ASC' : 'DESC'}
       LIMIT $2`,
      values,
    );
  }

  /** Answers whether there was such a credential. */
  async delete(tenantId: string, key: string): Promise<boolean> {
    // TypeORM answers a DELETE with [rows, affected count].
    const [, deleted] = (await this.dataSource.query(
      'DELETE FROM tenant_credentials WHERE tenant_id = $1 AND key = $2',
      [tenantId, key],
    )) as [unknown, number];
    return deleted > 0;
  }

  async find(tenantId: string, key: string): Promise<SealedRow | undefined> {
    const rows: SealedRow[] = await this.dataSource.query(
      'SELECT tenant_id, key, ciphertext, iv, auth_tag, key_id FROM tenant_credentials WHERE tenant_id = $1 AND key = $2',
      [tenantId, key],
    );
    return rows[0];
  }

  /** Every sealed row of one tenant. */
  sealedOf(tenantId: string): Promise<SealedRow[]> {
    return this.dataSource.query(
      'SELECT tenant_id, key, ciphertext, iv, auth_tag, key_id FROM tenant_credentials WHERE tenant_id = $1',
      [tenantId],
    );
  }

  /** The next rows sealed with one of `keyIds`, in (tenant, key) order after `after`. */
  sealedWith(keyIds: string[], limit: number, after?: { tenantId: string; key: string }): Promise<SealedRow[]> {
    return this.dataSource.query(
      `SELECT tenant_id, key, ciphertext, iv, auth_tag, key_id FROM tenant_credentials
       WHERE key_id = ANY($1) ${after ? 'AND (tenant_id, key) > ($3, $4)' : ''}
       ORDER BY tenant_id, key
       LIMIT $2`,
      after ? [keyIds, limit, after.tenantId, after.key] : [keyIds, limit],
    );
  }

  /**
   * Replaces the row's sealed value only if it is still the version that was read (a value written in the
   * meantime is already sealed with the current key). Answers whether it was replaced.
   */
  async reseal(manager: EntityManager, read: SealedRow, sealed: SealedValue): Promise<boolean> {
    // TypeORM answers an UPDATE with [rows, affected count].
    const [, changed] = (await manager.query(
      `UPDATE tenant_credentials SET ciphertext = $1, iv = $2, auth_tag = $3, key_id = $4
       WHERE tenant_id = $5 AND key = $6 AND key_id = $7 AND iv = $8`,
      [sealed.ciphertext, sealed.iv, sealed.authTag, sealed.keyId, read.tenant_id, read.key, read.key_id, read.iv],
    )) as [unknown, number];
    return changed > 0;
  }

  /** Rows sealed with `current`, and rows sealed with none of `configured` (with those keys' ids). */
  async keyCounts(current: string, configured: string[]): Promise<KeyCounts> {
    const counts: KeyCounts[] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE key_id = $1)::int AS current,
              count(*) FILTER (WHERE NOT key_id = ANY($2))::int AS missing,
              array_agg(DISTINCT key_id) FILTER (WHERE NOT key_id = ANY($2)) AS missing_ids
       FROM tenant_credentials`,
      [current, configured],
    );
    return counts[0];
  }

  async count(): Promise<number> {
    const rows: { n: number }[] = await this.dataSource.query('SELECT count(*)::int AS n FROM tenant_credentials');
    return rows[0].n;
  }
}

import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../../../common/api-error';
import { Clock } from '../../../common/clock';
import type { ListPage } from '../../../common/list.dto';
import { unixSeconds } from '../../../common/time';
import { AdvisoryLock, withAdvisoryLock } from '../../../database/advisory-locks';
import { credentialAad, DecryptionError, KeyRing, open, seal, SealedValue } from './credential-cipher';
import {
  CREDENTIAL_KEY_PATTERN,
  CREDENTIAL_KEY_RULE,
  CredentialDto,
  CredentialRotationDto,
  DeletedCredentialDto,
  ListCredentialsQueryDto,
  MAX_CREDENTIAL_BYTES,
} from './credentials.dto';

/** Rows re-encrypted per transaction during rotation. */
const ROTATION_BATCH = 100;

/** A stored credential that cannot be read: its key is not configured, or its row does not authenticate. */
export class CredentialUnavailableError extends Error {
  constructor(
    readonly tenantId: string,
    readonly key: string,
    reason: string,
  ) {
    super(`The credential '${key}' of tenant '${tenantId}' cannot be read: ${reason}`);
  }
}

interface CredentialRow {
  tenant_id: string;
  key: string;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
  key_id: string;
  created_at: Date;
  updated_at: Date;
}

/**
 * Per-tenant credentials for tools, encrypted with AES-256-GCM under the
 * configured key ring. Values go in through `put` and come out only through `resolve`, which the dispatcher
 * calls when a tool's `source.credential_key` needs one; no route ever returns a value.
 */
@Injectable()
export class CredentialsService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Credentials');

  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: KeyRing,
    private readonly clock: Clock,
  ) {}

  /** Rows sealed with an earlier key are re-encrypted with the current one at every start (one replica at a time). */
  async onApplicationBootstrap(): Promise<void> {
    await this.rotate();
  }

  /** Stores (or replaces) a tenant's credential. */
  async put(tenantId: string, key: string, value: string): Promise<CredentialDto> {
    assertKeyName(key);
    if (Buffer.byteLength(value, 'utf8') > MAX_CREDENTIAL_BYTES) {
      throw ApiError.invalid(`value must be at most ${MAX_CREDENTIAL_BYTES} bytes (UTF-8)`, 'value');
    }
    const sealed = seal(this.keys.current, value, credentialAad(tenantId, key));
    const now = this.clock.now();
    const rows: CredentialRow[] = await this.dataSource.query(
      `INSERT INTO tenant_credentials (tenant_id, key, ciphertext, iv, auth_tag, key_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (tenant_id, key) DO UPDATE
         SET ciphertext = EXCLUDED.ciphertext, iv = EXCLUDED.iv, auth_tag = EXCLUDED.auth_tag,
             key_id = EXCLUDED.key_id, updated_at = EXCLUDED.updated_at
       RETURNING tenant_id, key, created_at, updated_at`,
      [tenantId, key, sealed.ciphertext, sealed.iv, sealed.authTag, sealed.keyId, now],
    );
    return present(rows[0]);
  }

  /** Names and timestamps only, ordered by key name, with cursor pagination on the name. */
  async list(tenantId: string, params: ListCredentialsQueryDto): Promise<ListPage<CredentialDto>> {
    const limit = params.limit ?? 20;
    const order = params.order ?? 'asc';
    if (params.after !== undefined && params.before !== undefined) {
      throw ApiError.invalid('Use either after or before, not both', 'before');
    }
    // Walking "before" a cursor reads in the opposite direction and flips the page back afterwards.
    const forward = params.before === undefined;
    const ascending = (order === 'asc') === forward;
    const cursor = params.after ?? params.before;
    const values: unknown[] = [tenantId, limit + 1];
    let condition = '';
    if (cursor !== undefined) {
      values.push(cursor);
      condition = `AND key COLLATE "C" ${ascending ? '>' : '<'} $3`;
    }
    const rows: CredentialRow[] = await this.dataSource.query(
      `SELECT tenant_id, key, created_at, updated_at FROM tenant_credentials
       WHERE tenant_id = $1 ${condition}
       ORDER BY key COLLATE "C" ${ascending ? 'ASC' : 'DESC'}
       LIMIT $2`,
      values,
    );
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    if (!forward) page.reverse();
    return {
      object: 'list',
      data: page.map(present),
      first_id: page[0]?.key ?? null,
      last_id: page[page.length - 1]?.key ?? null,
      has_more: hasMore,
    };
  }

  async remove(tenantId: string, key: string): Promise<DeletedCredentialDto> {
    assertKeyName(key);
    // TypeORM answers a DELETE with [rows, affected count].
    const [, deleted] = (await this.dataSource.query(
      'DELETE FROM tenant_credentials WHERE tenant_id = $1 AND key = $2',
      [tenantId, key],
    )) as [unknown, number];
    if (deleted === 0) throw ApiError.notFound('credential', key, 'key');
    return { object: 'tenant.credential.deleted', tenant_id: tenantId, key, deleted: true };
  }

  /**
   * The tenant's value for `key`, decrypted for this call only (nothing is cached), or undefined when the
   * tenant has none. Throws CredentialUnavailableError when a stored value cannot be read (its key is not
   * configured, or the row was altered); the message names tenant, key and reason, never the value.
   */
  async resolve(tenantId: string, key: string): Promise<string | undefined> {
    const rows: CredentialRow[] = await this.dataSource.query(
      'SELECT tenant_id, key, ciphertext, iv, auth_tag, key_id FROM tenant_credentials WHERE tenant_id = $1 AND key = $2',
      [tenantId, key],
    );
    if (rows.length === 0) return undefined;
    const row = rows[0];
    const encryptionKey = this.keys.find(row.key_id);
    if (!encryptionKey) {
      throw new CredentialUnavailableError(
        tenantId,
        key,
        `it is encrypted with key ${row.key_id}, which is not configured (add it to secrets.previous_keys)`,
      );
    }
    try {
      return open(encryptionKey, sealedOf(row), credentialAad(row.tenant_id, row.key));
    } catch (error) {
      if (error instanceof DecryptionError) throw new CredentialUnavailableError(tenantId, key, error.message);
      throw error;
    }
  }

  /**
   * Re-encrypts, in batches, every row sealed with a configured earlier key under the current key, holding an
   * advisory lock so replicas do not do it twice. Rows sealed with a key that is not configured are counted
   * and left alone; so are rows that do not decrypt.
   */
  rotate(): Promise<CredentialRotationDto> {
    return withAdvisoryLock(this.dataSource, AdvisoryLock.credentialsRotation, () => this.rotateLocked());
  }

  private async rotateLocked(): Promise<CredentialRotationDto> {
    const current = this.keys.current.id;
    const previous = this.keys.ids.filter((id) => id !== current);
    let rotated = 0;
    let failed = 0;
    let last: { tenantId: string; key: string } | undefined;
    while (previous.length > 0) {
      const rows: CredentialRow[] = await this.dataSource.query(
        `SELECT tenant_id, key, ciphertext, iv, auth_tag, key_id FROM tenant_credentials
         WHERE key_id = ANY($1) ${last ? 'AND (tenant_id, key) > ($3, $4)' : ''}
         ORDER BY tenant_id, key
         LIMIT $2`,
        last ? [previous, ROTATION_BATCH, last.tenantId, last.key] : [previous, ROTATION_BATCH],
      );
      if (rows.length === 0) break;
      await this.dataSource.transaction(async (manager) => {
        for (const row of rows) {
          const aad = credentialAad(row.tenant_id, row.key);
          let value: string;
          try {
            value = open(this.keys.find(row.key_id)!, sealedOf(row), aad);
          } catch (error) {
            if (!(error instanceof DecryptionError)) throw error;
            failed++;
            this.logger.error(`Credential '${row.key}' of tenant '${row.tenant_id}' does not decrypt; left as it is`);
            continue;
          }
          const sealed = seal(this.keys.current, value, aad);
          // TypeORM answers an UPDATE with [rows, affected count]. Only the version that was read is replaced:
          // a value written in the meantime is already sealed with the current key.
          const [, changed] = (await manager.query(
            `UPDATE tenant_credentials SET ciphertext = $1, iv = $2, auth_tag = $3, key_id = $4
             WHERE tenant_id = $5 AND key = $6 AND key_id = $7 AND iv = $8`,
            [sealed.ciphertext, sealed.iv, sealed.authTag, sealed.keyId, row.tenant_id, row.key, row.key_id, row.iv],
          )) as [unknown, number];
          if (changed > 0) rotated++;
        }
      });
      const tail = rows[rows.length - 1];
      last = { tenantId: tail.tenant_id, key: tail.key };
    }
    const counts: { current: number; missing: number; missing_ids: string[] | null }[] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE key_id = $1)::int AS current,
              count(*) FILTER (WHERE NOT key_id = ANY($2))::int AS missing,
              array_agg(DISTINCT key_id) FILTER (WHERE NOT key_id = ANY($2)) AS missing_ids
       FROM tenant_credentials`,
      [current, this.keys.ids],
    );
    const { current: upToDate, missing, missing_ids: missingIds } = counts[0];
    if (rotated > 0) this.logger.log(`Re-encrypted ${rotated} credential(s) with the current key ${current}`);
    if (missing > 0) {
      this.logger.warn(
        `${missing} credential(s) are encrypted with key(s) ${(missingIds ?? []).join(', ')} that are not configured: ` +
          'they cannot be read until the key is added to secrets.previous_keys or secrets.previous_key_files',
      );
    }
    return { object: 'credential.rotation', key_id: current, rotated, current: upToDate, missing_key: missing, failed };
  }
}

export function assertKeyName(key: string): void {
  if (!CREDENTIAL_KEY_PATTERN.test(key)) throw ApiError.invalid(`key must be ${CREDENTIAL_KEY_RULE}`, 'key');
}

function sealedOf(row: CredentialRow): SealedValue {
  return { ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag, keyId: row.key_id };
}

function present(row: Pick<CredentialRow, 'tenant_id' | 'key' | 'created_at' | 'updated_at'>): CredentialDto {
  return {
    object: 'tenant.credential',
    tenant_id: row.tenant_id,
    key: row.key,
    created_at: unixSeconds(row.created_at),
    updated_at: unixSeconds(row.updated_at),
  };
}

import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../../../common/api-error';
import { Clock } from '../../../common/clock';
import type { ListPage } from '../../../common/list.dto';
import { isoTime } from '../../../common/time';
import { AdvisoryLock, withAdvisoryLock } from '../../../database/advisory-locks';
import { ChangeEvents } from '../../../database/change-events';
import { CredentialNames, CredentialRepository, SealedRow } from './credential.repository';
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

/** Published with the tenant id after a credential is stored or deleted. */
export const CREDENTIALS_CHANGED = 'credentials.changed';

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
    private readonly credentials: CredentialRepository,
    private readonly keys: KeyRing,
    private readonly clock: Clock,
    private readonly events: ChangeEvents,
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
    const stored = present(await this.credentials.upsert(tenantId, key, sealed, now));
    await this.events.publish(CREDENTIALS_CHANGED, tenantId);
    return stored;
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
    const rows = await this.credentials.namesOf(tenantId, limit + 1, ascending, params.after ?? params.before);
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
    if (!(await this.credentials.delete(tenantId, key))) throw ApiError.notFound('credential', key, 'key');
    await this.events.publish(CREDENTIALS_CHANGED, tenantId);
    return { object: 'tenant.credential.deleted', tenant_id: tenantId, key, deleted: true };
  }

  /**
   * The tenant's value for `key`, decrypted for this call only (nothing is cached), or undefined when the
   * tenant has none. Throws CredentialUnavailableError when a stored value cannot be read (its key is not
   * configured, or the row was altered); the message names tenant, key and reason, never the value.
   */
  async resolve(tenantId: string, key: string): Promise<string | undefined> {
    const row = await this.credentials.find(tenantId, key);
    if (!row) return undefined;
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
   * Every credential of a tenant, decrypted, for call-time scanning to index (as keyed hashes) and drop.
   * Rows that cannot be read are left out: they cannot be handed to a tool either.
   */
  async valuesOf(tenantId: string): Promise<{ key: string; value: string }[]> {
    const values: { key: string; value: string }[] = [];
    for (const row of await this.credentials.sealedOf(tenantId)) {
      const encryptionKey = this.keys.find(row.key_id);
      if (!encryptionKey) continue;
      try {
        values.push({ key: row.key, value: open(encryptionKey, sealedOf(row), credentialAad(row.tenant_id, row.key)) });
      } catch (error) {
        if (!(error instanceof DecryptionError)) throw error;
      }
    }
    return values;
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
      const rows = await this.credentials.sealedWith(previous, ROTATION_BATCH, last);
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
          if (await this.credentials.reseal(manager, row, seal(this.keys.current, value, aad))) rotated++;
        }
      });
      const tail = rows[rows.length - 1];
      last = { tenantId: tail.tenant_id, key: tail.key };
    }
    const {
      current: upToDate,
      missing,
      missing_ids: missingIds,
    } = await this.credentials.keyCounts(current, this.keys.ids);
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

function sealedOf(row: SealedRow): SealedValue {
  return { ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag, keyId: row.key_id };
}

function present(row: CredentialNames): CredentialDto {
  return {
    object: 'tenant.credential',
    tenant_id: row.tenant_id,
    key: row.key,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { Clock } from '../common/clock';
import { TtlCache } from '../common/ttl-cache';
import { ChangeEvents } from '../database/change-events';
import { BackgroundTasks } from '../observability/background';
import { newId } from '../common/ids';
import { ListPage } from '../common/list.dto';
import { isoTime } from '../common/time';
import type { Identity } from '../tenancy/request-context';
import { ApiKeyEntity, Role } from './api-key.entity';
import { ApiKeyRepository } from './api-key.repository';
import { displayPrefix, generateApiKeySecret, hashApiKeySecret } from './api-key.secret';
import { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto, DeletedApiKeyDto, ListApiKeysQueryDto } from './api-keys.dto';

/** `last_used_at` is refreshed at most this often, so a busy key does not cost a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Verified keys are remembered this long at most; a revocation drops them at once on every replica. */
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;
const KEYS_CHANGED = 'api_keys.changed';

@Injectable()
export class ApiKeysService {
  /** Keyed by the secret's hash, or `id:<key id>` for lookups by id. */
  private readonly verified: TtlCache<string, ApiKeyEntity>;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly events: ChangeEvents,
    private readonly background: BackgroundTasks,
    private readonly clock: Clock,
  ) {
    this.verified = new TtlCache(CACHE_TTL_MS, CACHE_MAX_ENTRIES, () => clock.now().getTime());
    events.subscribe(KEYS_CHANGED, () => this.verified.clear());
    events.onReset(() => this.verified.clear());
  }

  async create(input: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    if (input.expires_at && input.expires_in) {
      throw ApiError.invalid('Give either expires_at or expires_in, not both', 'expires_in');
    }
    const expiresAt = input.expires_at
      ? new Date(input.expires_at)
      : input.expires_in
        ? new Date(this.clock.now().getTime() + input.expires_in * 1000)
        : null;
    if (expiresAt && expiresAt <= this.clock.now()) {
      throw ApiError.invalid('expires_at must be in the future', 'expires_at');
    }
    const { entity, secret } = await this.insert({
      name: input.name,
      tenantId: input.tenant_id,
      role: input.role ?? 'member',
      expiresAt,
    });
    return { ...present(entity, this.clock.now()), secret };
  }

  /** Inserts a key; the secret is generated unless given (ADMIN_API_KEY) and never stored. */
  async insert(fields: {
    name: string;
    tenantId: string;
    role: Role;
    expiresAt?: Date | null;
    bootstrap?: boolean;
    secret?: string;
  }): Promise<{ entity: ApiKeyEntity; secret: string }> {
    const secret = fields.secret ?? generateApiKeySecret();
    const entity = Object.assign(new ApiKeyEntity(), {
      id: newId('key_'),
      name: fields.name,
      tenantId: fields.tenantId,
      role: fields.role,
      prefix: displayPrefix(secret),
      secretHash: hashApiKeySecret(secret),
      bootstrap: fields.bootstrap ?? false,
      expiresAt: fields.expiresAt ?? null,
      revokedAt: null,
      lastUsedAt: null,
      createdAt: this.clock.now(),
    });
    await this.keys.insert(entity);
    return { entity, secret };
  }

  list(query: ListApiKeysQueryDto): Promise<ListPage<ApiKeyDto>> {
    return this.keys.page(query.tenant_id, query, (entity) => present(entity, this.clock.now()));
  }

  async get(id: string): Promise<ApiKeyDto> {
    const entity = await this.keys.find({ id });
    if (!entity) throw ApiError.notFound('API key', id, 'id');
    return present(entity, this.clock.now());
  }

  /** Revocation is immediate and idempotent: revoking a revoked key answers the same way. */
  async revoke(id: string): Promise<DeletedApiKeyDto> {
    const entity = await this.keys.find({ id });
    if (!entity) throw ApiError.notFound('API key', id, 'id');
    if (!entity.revokedAt) {
      await this.keys.revoke(id, this.clock.now());
      await this.keysChanged();
    }
    return { id, object: 'api_key.deleted', deleted: true };
  }

  /** Tells every replica to forget the keys it verified; call after any revocation or replacement. */
  keysChanged(): Promise<void> {
    return this.events.publish(KEYS_CHANGED);
  }

  /**
   * Resolves a presented secret to an identity. Verified keys are cached briefly; a revocation anywhere
   * clears the caches of every replica through LISTEN/NOTIFY, so a revoked key is refused at once.
   */
  async authenticate(secret: string): Promise<Identity> {
    const secretHash = hashApiKeySecret(secret);
    const entity = this.verified.get(secretHash) ?? (await this.load({ secretHash }, secretHash));
    if (!entity) throw ApiError.unauthorized('Invalid API key');
    return this.identityOf(entity);
  }

  /**
   * The identity of the key with this id while it is active: OAuth access tokens of the built-in authorization
   * server stand for a key, and stop working the moment it is revoked or expires (same cache, same invalidation).
   */
  async authenticateById(id: string): Promise<Identity> {
    const cacheKey = `id:${id}`;
    const entity = this.verified.get(cacheKey) ?? (await this.load({ id }, cacheKey));
    if (!entity)
      throw ApiError.unauthorized('The API key this token was issued for no longer exists', 'revoked_api_key');
    return this.identityOf(entity);
  }

  private identityOf(entity: ApiKeyEntity): Identity {
    if (entity.revokedAt) throw ApiError.unauthorized('This API key has been revoked', 'revoked_api_key');
    if (entity.expiresAt && entity.expiresAt <= this.clock.now()) {
      throw ApiError.unauthorized('This API key has expired', 'expired_api_key');
    }
    this.touch(entity);
    return { tenantId: entity.tenantId, role: entity.role, subject: entity.id, method: 'api_key' };
  }

  private async load(where: { secretHash: string } | { id: string }, cacheKey: string): Promise<ApiKeyEntity | null> {
    const entity = await this.keys.find(where);
    if (entity && !entity.revokedAt) this.verified.set(cacheKey, entity);
    return entity;
  }

  private touch(entity: ApiKeyEntity): void {
    const now = this.clock.now().getTime();
    if (entity.lastUsedAt && now - entity.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
    entity.lastUsedAt = new Date(now);
    // Not awaited: a failed bookkeeping write must not fail the request it describes.
    this.background.run('api_key_last_used', () => this.keys.touch(entity.id, new Date(now)));
  }
}

function present(entity: ApiKeyEntity, now: Date): ApiKeyDto {
  const expired = entity.expiresAt !== null && entity.expiresAt <= now;
  return {
    id: entity.id,
    object: 'api_key',
    name: entity.name,
    tenant_id: entity.tenantId,
    role: entity.role,
    prefix: entity.prefix,
    status: entity.revokedAt ? 'revoked' : expired ? 'expired' : 'active',
    created_at: isoTime(entity.createdAt),
    expires_at: isoTime(entity.expiresAt),
    revoked_at: isoTime(entity.revokedAt),
    last_used_at: isoTime(entity.lastUsedAt),
  };
}

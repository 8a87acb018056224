import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../../../../common/api-error';
import { Clock } from '../../../../common/clock';
import { newId } from '../../../../common/ids';
import { ListPage, ListQueryDto } from '../../../../common/list.dto';
import { unixSeconds } from '../../../../common/time';
import { FilesService } from '../files/files.service';
import { FileSearchSettings } from '../file-search.config';
import { IngestionQueue } from '../ingestion/ingestion.queue';
import { VectorIndex } from '../ingestion/vector-index';
import { parseChunkingStrategy, parseExpiresAfter, parseMetadata } from '../validation';
import { VectorStoreFileRepository } from '../vector-store-files/vector-store-file.repository';
import { FileTally, tallyFiles } from './file-counts';
import { expiresAt, isExpired, VectorStoreEntity } from './vector-store.entity';
import { VectorStoreChanges, VectorStoreRepository } from './vector-store.repository';
import { CreateVectorStoreDto, DeletedVectorStoreDto, UpdateVectorStoreDto, VectorStoreDto } from './vector-stores.dto';

/** last_active_at is written at most this often, so a busy store does not cost a write per search. */
const ACTIVITY_RESOLUTION_MS = 60_000;

/** Vector stores: tenant-scoped CRUD, exact file counts, expiry. */
@Injectable()
export class VectorStoresService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly stores: VectorStoreRepository,
    private readonly storeFiles: VectorStoreFileRepository,
    private readonly files: FilesService,
    private readonly queue: IngestionQueue,
    private readonly index: VectorIndex,
    private readonly settings: FileSearchSettings,
    private readonly clock: Clock,
  ) {}

  async create(tenantId: string, input: CreateVectorStoreDto): Promise<VectorStoreDto> {
    const metadata = parseMetadata(input.metadata) ?? {};
    const days = parseExpiresAfter(input.expires_after) ?? null;
    const chunking = parseChunkingStrategy(input.chunking_strategy, this.defaultChunking);
    const fileIds = [...new Set(input.file_ids ?? [])];
    for (const [i, id] of fileIds.entries()) await this.files.find(tenantId, id, `file_ids[${i}]`);
    const now = this.clock.now();
    const store: VectorStoreEntity = {
      id: newId('vs_'),
      tenantId,
      name: input.name ?? '',
      description: input.description ?? null,
      metadata,
      expiresAfterDays: days,
      lastActiveAt: now,
      createdAt: now,
    };
    await this.dataSource.transaction(async (manager) => {
      await this.stores.insert(store, manager);
      await this.queue.enqueue(
        tenantId,
        store.id,
        fileIds.map((fileId) => ({ fileId, attributes: null, chunking })),
        null,
        manager,
      );
    });
    this.queue.wake();
    return this.present(store);
  }

  async list(tenantId: string, query: ListQueryDto): Promise<ListPage<VectorStoreDto>> {
    const page = await this.stores.list(tenantId, query);
    const tallies = await this.tally(
      tenantId,
      page.data.map((store) => store.id),
    );
    return { ...page, data: page.data.map((store) => this.presentWith(store, tallies.get(store.id)!)) };
  }

  async get(tenantId: string, id: string): Promise<VectorStoreDto> {
    return this.present(await this.find(tenantId, id));
  }

  async update(tenantId: string, id: string, input: UpdateVectorStoreDto): Promise<VectorStoreDto> {
    const store = await this.find(tenantId, id);
    const changes: VectorStoreChanges = {};
    if (input.name !== undefined) changes.name = input.name ?? '';
    const metadata = parseMetadata(input.metadata);
    if (metadata !== undefined) changes.metadata = metadata;
    const days = parseExpiresAfter(input.expires_after);
    if (days !== undefined) changes.expiresAfterDays = days;
    if (Object.keys(changes).length > 0) await this.stores.update(tenantId, id, changes);
    return this.present({ ...store, ...changes });
  }

  async delete(tenantId: string, id: string): Promise<DeletedVectorStoreDto> {
    await this.find(tenantId, id);
    await this.stores.delete(tenantId, id);
    return { id, object: 'vector_store.deleted', deleted: true };
  }

  /** The store, or 404 (also for another tenant's store). */
  async find(tenantId: string, id: string, param: string | null = null): Promise<VectorStoreEntity> {
    const store = await this.stores.find(tenantId, id);
    if (!store) throw ApiError.notFound('vector store', id, param);
    return store;
  }

  /** The store, refused when it has expired: an expired store can be read and deleted, not used. */
  async findUsable(tenantId: string, id: string, param: string | null = null): Promise<VectorStoreEntity> {
    const store = await this.find(tenantId, id, param);
    if (isExpired(store, this.clock.now())) {
      throw ApiError.invalid(
        `Vector store '${id}' expired at ${expiresAt(store)!.toISOString()}; change its expires_after or create a new one`,
        param,
        'vector_store_expired',
      );
    }
    return store;
  }

  /** Records use of the stores (search, new files), which pushes their expiry back. */
  async touch(stores: VectorStoreEntity[]): Promise<void> {
    const now = this.clock.now();
    const stale = stores.filter((s) => now.getTime() - s.lastActiveAt.getTime() >= ACTIVITY_RESOLUTION_MS);
    if (stale.length === 0) return;
    await this.stores.markActive(
      stale[0].tenantId,
      stale.map((s) => s.id),
      now,
    );
  }

  get defaultChunking() {
    return { size: this.settings.chunkSize, overlap: this.settings.chunkOverlap };
  }

  async present(store: VectorStoreEntity): Promise<VectorStoreDto> {
    const tallies = await this.tally(store.tenantId, [store.id]);
    return this.presentWith(store, tallies.get(store.id)!);
  }

  private async tally(tenantId: string, ids: string[]): Promise<Map<string, FileTally>> {
    return tallyFiles(ids, await this.storeFiles.countByStatus(tenantId, 'vector_store_id', ids));
  }

  private presentWith(store: VectorStoreEntity, tally: FileTally): VectorStoreDto {
    const status = isExpired(store, this.clock.now())
      ? 'expired'
      : tally.counts.in_progress > 0
        ? 'in_progress'
        : 'completed';
    return {
      id: store.id,
      object: 'vector_store',
      created_at: unixSeconds(store.createdAt),
      name: store.name,
      description: store.description,
      usage_bytes: tally.usageBytes,
      file_counts: tally.counts,
      status,
      expires_after:
        store.expiresAfterDays === null ? null : { anchor: 'last_active_at', days: store.expiresAfterDays },
      expires_at: unixSeconds(expiresAt(store)),
      last_active_at: unixSeconds(store.lastActiveAt),
      metadata: store.metadata,
      search_mode: this.index.mode,
    };
  }
}

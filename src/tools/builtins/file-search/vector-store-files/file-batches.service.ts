import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../../../../common/api-error';
import { Clock } from '../../../../common/clock';
import { newId } from '../../../../common/ids';
import { unixSeconds } from '../../../../common/time';
import { FilesService } from '../files/files.service';
import { ChunkRepository } from '../ingestion/chunk.repository';
import { IngestionQueue } from '../ingestion/ingestion.queue';
import { parseAttributes, parseChunkingStrategy } from '../validation';
import { FileTally, tallyFiles } from '../vector-stores/file-counts';
import { VectorStoresService } from '../vector-stores/vector-stores.service';
import { FileBatchEntity } from './file-batch.entity';
import { FileBatchRepository } from './file-batch.repository';
import { IngestionRequest, VectorStoreFileRepository } from './vector-store-file.repository';
import { CreateFileBatchDto, FileBatchDto } from './vector-store-files.dto';

/** File batches: many files added at once, counted together, cancellable together. */
@Injectable()
export class FileBatchesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly batches: FileBatchRepository,
    private readonly storeFiles: VectorStoreFileRepository,
    private readonly chunks: ChunkRepository,
    private readonly stores: VectorStoresService,
    private readonly files: FilesService,
    private readonly queue: IngestionQueue,
    private readonly clock: Clock,
  ) {}

  async create(tenantId: string, vectorStoreId: string, input: CreateFileBatchDto): Promise<FileBatchDto> {
    const store = await this.stores.findUsable(tenantId, vectorStoreId, 'vector_store_id');
    const attributes = parseAttributes(input.attributes) ?? null;
    const chunking = parseChunkingStrategy(input.chunking_strategy, this.stores.defaultChunking);
    const requests: IngestionRequest[] = (input.file_ids ?? []).map((fileId) => ({ fileId, attributes, chunking }));
    for (const [i, raw] of (input.files ?? []).entries()) {
      const param = `files[${i}]`;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        throw ApiError.invalid(`${param} must be an object with file_id`, param);
      }
      const entry = raw as Record<string, unknown>;
      const extra = Object.keys(entry).find((k) => !['file_id', 'attributes', 'chunking_strategy'].includes(k));
      if (extra) throw ApiError.invalid(`${param}.${extra} is not a field of a batch file`, `${param}.${extra}`);
      if (typeof entry.file_id !== 'string')
        throw ApiError.invalid(`${param}.file_id must be a string`, `${param}.file_id`);
      requests.push({
        fileId: entry.file_id,
        attributes:
          entry.attributes === undefined
            ? attributes
            : (parseAttributes(entry.attributes, `${param}.attributes`) ?? null),
        chunking:
          entry.chunking_strategy === undefined
            ? chunking
            : parseChunkingStrategy(entry.chunking_strategy, chunking, `${param}.chunking_strategy`),
      });
    }
    if (requests.length === 0) {
      throw ApiError.invalid('Give file_ids or files: at least one file', 'file_ids', 'missing_required_parameter');
    }
    // A missing file is named where the request gave it: in file_ids, or as a file_id in files.
    const listed = input.file_ids?.length ?? 0;
    for (const [i, request] of requests.entries()) {
      const param = i < listed ? `file_ids[${i}]` : `files[${i - listed}].file_id`;
      await this.files.find(tenantId, request.fileId, param);
    }
    const batch: FileBatchEntity = {
      id: newId('vsfb_'),
      tenantId,
      vectorStoreId,
      cancelledAt: null,
      createdAt: this.clock.now(),
    };
    await this.dataSource.transaction(async (manager) => {
      await this.batches.insert(batch, manager);
      await this.queue.enqueue(tenantId, vectorStoreId, requests, batch.id, manager);
    });
    this.queue.wake();
    await this.stores.touch([store]);
    return this.present(batch);
  }

  async get(tenantId: string, vectorStoreId: string, batchId: string): Promise<FileBatchDto> {
    return this.present(await this.find(tenantId, vectorStoreId, batchId));
  }

  /** Stops the batch's unfinished files; what already completed stays. */
  async cancel(tenantId: string, vectorStoreId: string, batchId: string): Promise<FileBatchDto> {
    const batch = await this.find(tenantId, vectorStoreId, batchId);
    if (batch.cancelledAt) return this.present(batch);
    await this.dataSource.transaction(async (manager) => {
      const cancelled = await this.storeFiles.cancelBatch(tenantId, batchId, manager);
      if (cancelled === 0) return;
      batch.cancelledAt = this.clock.now();
      await this.batches.markCancelled(batchId, batch.cancelledAt, manager);
      await this.chunks.deleteCancelledInBatch(batchId, manager);
    });
    return this.present(batch);
  }

  async find(tenantId: string, vectorStoreId: string, batchId: string): Promise<FileBatchEntity> {
    await this.stores.find(tenantId, vectorStoreId, 'vector_store_id');
    const batch = await this.batches.find(tenantId, vectorStoreId, batchId);
    if (!batch) throw ApiError.notFound('file batch', batchId, 'batch_id');
    return batch;
  }

  private async present(batch: FileBatchEntity): Promise<FileBatchDto> {
    const counts = await this.storeFiles.countByStatus(batch.tenantId, 'batch_id', [batch.id]);
    const tally = tallyFiles([batch.id], counts).get(batch.id)!;
    return {
      id: batch.id,
      object: 'vector_store.files_batch',
      created_at: unixSeconds(batch.createdAt),
      vector_store_id: batch.vectorStoreId,
      status: batchStatus(batch, tally),
      file_counts: tally.counts,
    };
  }
}

function batchStatus(batch: FileBatchEntity, { counts }: FileTally): string {
  if (batch.cancelledAt) return 'cancelled';
  if (counts.in_progress > 0) return 'in_progress';
  if (counts.total > 0 && counts.failed === counts.total) return 'failed';
  return 'completed';
}

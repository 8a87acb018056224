import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError } from '../../../../common/api-error';
import { ListPage } from '../../../../common/list.dto';
import { unixSeconds } from '../../../../common/time';
import { FilesService } from '../files/files.service';
import { ChunkRepository } from '../ingestion/chunk.repository';
import { IngestionQueue } from '../ingestion/ingestion.queue';
import { Chunking, parseAttributes, parseChunkingStrategy } from '../validation';
import { VectorStoresService } from '../vector-stores/vector-stores.service';
import { Attributes, VectorStoreFileEntity } from './vector-store-file.entity';
import { VectorStoreFileRepository } from './vector-store-file.repository';
import {
  CreateVectorStoreFileDto,
  DeletedVectorStoreFileDto,
  ListVectorStoreFilesQueryDto,
  VectorStoreFileContentDto,
  VectorStoreFileDto,
} from './vector-store-files.dto';

/** Files in vector stores: adding (by id or by upload), listing, attributes, removal, parsed content. */
@Injectable()
export class VectorStoreFilesService {
  constructor(
    private readonly rows: VectorStoreFileRepository,
    private readonly chunks: ChunkRepository,
    private readonly stores: VectorStoresService,
    private readonly files: FilesService,
    private readonly queue: IngestionQueue,
  ) {}

  async create(tenantId: string, vectorStoreId: string, input: CreateVectorStoreFileDto): Promise<VectorStoreFileDto> {
    const store = await this.stores.findUsable(tenantId, vectorStoreId, 'vector_store_id');
    const attributes = parseAttributes(input.attributes) ?? null;
    const chunking = parseChunkingStrategy(input.chunking_strategy, this.stores.defaultChunking);
    await this.files.find(tenantId, input.file_id, 'file_id');
    return this.add(tenantId, store.id, input.file_id, attributes, chunking, store);
  }

  /**
   * Upload and attach in one request: a multipart upload (`file`, optional JSON `attributes`,
   * `chunking_strategy`).
   */
  async upload(tenantId: string, vectorStoreId: string, request: Request): Promise<VectorStoreFileDto> {
    const store = await this.stores.findUsable(tenantId, vectorStoreId, 'vector_store_id');
    let attributes: Attributes | null = null;
    let chunking = this.stores.defaultChunking;
    const { file } = await this.files.receive(tenantId, request, (fields) => {
      attributes = parseAttributes(jsonField(fields, 'attributes')) ?? null;
      chunking = parseChunkingStrategy(jsonField(fields, 'chunking_strategy'), this.stores.defaultChunking);
      const unknown = Object.keys(fields).find((name) => name !== 'attributes' && name !== 'chunking_strategy');
      if (unknown) throw ApiError.invalid(`Unknown form field '${unknown}'`, unknown);
    });
    return this.add(tenantId, store.id, file.id, attributes, chunking, store);
  }

  private async add(
    tenantId: string,
    vectorStoreId: string,
    fileId: string,
    attributes: Attributes | null,
    chunking: Chunking,
    store: Parameters<VectorStoresService['touch']>[0][number],
  ): Promise<VectorStoreFileDto> {
    await this.queue.enqueue(tenantId, vectorStoreId, [{ fileId, attributes, chunking }]);
    this.queue.wake();
    await this.stores.touch([store]);
    return present(await this.find(tenantId, vectorStoreId, fileId));
  }

  async list(
    tenantId: string,
    vectorStoreId: string,
    query: ListVectorStoreFilesQueryDto,
    batchId?: string,
  ): Promise<ListPage<VectorStoreFileDto>> {
    await this.stores.find(tenantId, vectorStoreId, 'vector_store_id');
    const page = await this.rows.list(tenantId, vectorStoreId, { batchId, status: query.filter }, query);
    return { ...page, data: page.data.map(present) };
  }

  async get(tenantId: string, vectorStoreId: string, fileId: string): Promise<VectorStoreFileDto> {
    return present(await this.find(tenantId, vectorStoreId, fileId));
  }

  async update(tenantId: string, vectorStoreId: string, fileId: string, raw: unknown): Promise<VectorStoreFileDto> {
    const row = await this.find(tenantId, vectorStoreId, fileId);
    const attributes = parseAttributes(raw) ?? null;
    await this.rows.updateAttributes(tenantId, vectorStoreId, fileId, attributes);
    return present({ ...row, attributes });
  }

  /** Removes the file from the store (its chunks and vectors go too); the file itself stays. */
  async delete(tenantId: string, vectorStoreId: string, fileId: string): Promise<DeletedVectorStoreFileDto> {
    await this.find(tenantId, vectorStoreId, fileId);
    await this.rows.delete(tenantId, vectorStoreId, fileId);
    return { id: fileId, object: 'vector_store.file.deleted', deleted: true };
  }

  /** The parsed text of the file as stored: its chunks in order. */
  async content(tenantId: string, vectorStoreId: string, fileId: string): Promise<VectorStoreFileContentDto> {
    await this.find(tenantId, vectorStoreId, fileId);
    const texts = await this.chunks.texts({ tenantId, vectorStoreId, fileId });
    return {
      object: 'vector_store.file_content.page',
      data: texts.map((text) => ({ type: 'text', text })),
      has_more: false,
      next_page: null,
    };
  }

  async find(tenantId: string, vectorStoreId: string, fileId: string): Promise<VectorStoreFileEntity> {
    await this.stores.find(tenantId, vectorStoreId, 'vector_store_id');
    const row = await this.rows.find(tenantId, vectorStoreId, fileId);
    if (!row) throw ApiError.notFound('vector store file', fileId, 'file_id');
    return row;
  }
}

/** Form fields carry objects as JSON text. */
function jsonField(fields: Record<string, string>, name: string): unknown {
  const value = fields[name];
  if (value === undefined || value === '') return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw ApiError.invalid(`${name} must be JSON text of an object`, name);
  }
}

export function present(row: VectorStoreFileEntity): VectorStoreFileDto {
  return {
    id: row.id,
    object: 'vector_store.file',
    usage_bytes: row.usageBytes,
    created_at: unixSeconds(row.createdAt),
    vector_store_id: row.vectorStoreId,
    status: row.status,
    last_error: row.lastErrorCode ? { code: row.lastErrorCode, message: row.lastErrorMessage ?? '' } : null,
    chunking_strategy: {
      type: 'static',
      static: { max_chunk_size_tokens: row.chunkSize, chunk_overlap_tokens: row.chunkOverlap },
    },
    attributes: row.attributes,
    progress: row.progress,
  };
}

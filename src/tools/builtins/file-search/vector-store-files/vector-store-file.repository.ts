import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { ListPage, ListQueryDto } from '../../../../common/list.dto';
import { paginate } from '../../../../common/paginate';
import type { Chunking } from '../validation';
import {
  Attributes,
  IngestionErrorCode,
  IngestionProgress,
  VectorStoreFileEntity,
  VectorStoreFileStatus,
} from './vector-store-file.entity';

/** One file to (re)index in a store. */
export interface IngestionRequest {
  fileId: string;
  attributes: Attributes | null;
  chunking: Chunking;
}

/** A claimed ingestion job: the row's fields a worker needs, and the lease it holds. */
export interface LeasedJob {
  vector_store_id: string;
  file_id: string;
  tenant_id: string;
  chunk_size: number;
  chunk_overlap: number;
  attempts: number;
  token: string;
}

/** Rows per status in one store or batch: `id` is the store's or the batch's. */
export interface StatusCount {
  id: string;
  status: VectorStoreFileStatus;
  count: number;
  /** Sum of usage_bytes, as text (bigint). */
  bytes: string;
}

export interface VectorStoreFileFilter {
  batchId?: string;
  status?: VectorStoreFileStatus;
}

/**
 * file_search_vector_store_files: files in vector stores. While `in_progress` a row is also its file's
 * ingestion job, held by a worker under a lease (`lease_owner`, `lease_expires_at`): the lease methods
 * change a row only while the caller's token still owns it. Leases run on the database's clock, the one clock
 * all replicas share, so that one replica's skew cannot expire another's lease.
 */
@Injectable()
export class VectorStoreFileRepository {
  private readonly rows: Repository<VectorStoreFileEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.rows = dataSource.getRepository(VectorStoreFileEntity);
  }

  /**
   * Puts the files in the store as `in_progress` jobs; a file already there starts over with the new
   * attributes and chunking. Expects one request per file.
   */
  async enqueue(
    tenantId: string,
    vectorStoreId: string,
    requests: IngestionRequest[],
    batchId: string | null,
    createdAt: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO file_search_vector_store_files
         (vector_store_id, file_id, tenant_id, batch_id, status, chunk_size, chunk_overlap, attributes, created_at)
       SELECT $1, r.file_id, $2, $3, 'in_progress', r.chunk_size, r.chunk_overlap, r.attributes, $4
       FROM unnest($5::varchar[], $6::int[], $7::int[], $8::jsonb[]) AS r (file_id, chunk_size, chunk_overlap, attributes)
       ON CONFLICT (vector_store_id, file_id) DO UPDATE SET
         batch_id = EXCLUDED.batch_id, status = 'in_progress', usage_bytes = 0, progress = NULL,
         last_error_code = NULL, last_error_message = NULL,
         chunk_size = EXCLUDED.chunk_size, chunk_overlap = EXCLUDED.chunk_overlap, attributes = EXCLUDED.attributes,
         attempts = 0, lease_owner = NULL, lease_expires_at = NULL`,
      [
        vectorStoreId,
        tenantId,
        batchId,
        createdAt,
        requests.map((r) => r.fileId),
        requests.map((r) => r.chunking.size),
        requests.map((r) => r.chunking.overlap),
        requests.map((r) => (r.attributes === null ? null : JSON.stringify(r.attributes))),
      ],
    );
  }

  /** Rows and usage bytes per status, for each of the stores or batches named by `ids`. */
  async countByStatus(
    tenantId: string,
    groupBy: 'vector_store_id' | 'batch_id',
    ids: string[],
  ): Promise<StatusCount[]> {
    if (ids.length === 0) return [];
    return (await this.dataSource.query(
      `SELECT ${groupBy} AS id, status, count(*)::int AS count, coalesce(sum(usage_bytes), 0)::bigint AS bytes
       FROM file_search_vector_store_files
       WHERE tenant_id = $1 AND ${groupBy} = ANY($2::varchar[])
       GROUP BY 1, 2`,
      [tenantId, ids],
    )) as StatusCount[];
  }

  list(
    tenantId: string,
    vectorStoreId: string,
    filter: VectorStoreFileFilter,
    query: ListQueryDto,
  ): Promise<ListPage<VectorStoreFileEntity>> {
    const builder = this.rows
      .createQueryBuilder('vsf')
      .where('vsf.tenantId = :tenantId AND vsf.vectorStoreId = :vectorStoreId', { tenantId, vectorStoreId });
    if (filter.batchId) builder.andWhere('vsf.batchId = :batchId', { batchId: filter.batchId });
    if (filter.status) builder.andWhere('vsf.status = :status', { status: filter.status });
    return paginate(builder, query, (row) => row);
  }

  find(tenantId: string, vectorStoreId: string, fileId: string): Promise<VectorStoreFileEntity | null> {
    return this.rows.findOneBy({ tenantId, vectorStoreId, id: fileId });
  }

  async updateAttributes(
    tenantId: string,
    vectorStoreId: string,
    fileId: string,
    attributes: Attributes | null,
  ): Promise<void> {
    await this.rows.update({ vectorStoreId, id: fileId, tenantId }, { attributes });
  }

  /** Its chunks and vectors go with it (foreign keys cascade). */
  async delete(tenantId: string, vectorStoreId: string, fileId: string): Promise<void> {
    await this.rows.delete({ vectorStoreId, id: fileId, tenantId });
  }

  /** Cancels the batch's unfinished files; returns how many there were. */
  async cancelBatch(tenantId: string, batchId: string, manager: EntityManager): Promise<number> {
    const [, cancelled] = (await manager.query(
      `UPDATE file_search_vector_store_files SET status = 'cancelled', lease_owner = NULL, lease_expires_at = NULL
       WHERE tenant_id = $1 AND batch_id = $2 AND status = 'in_progress'`,
      [tenantId, batchId],
    )) as [unknown, number];
    return cancelled;
  }

  /**
   * Leases the oldest unleased job to `token`; SKIP LOCKED lets workers of every replica claim side by side. A
   * lease ending now is over (`<=`): a job given back with no delay is claimable at once, even within the same
   * tick of the database's clock.
   */
  async claim(token: string, leaseMs: number): Promise<LeasedJob | undefined> {
    const [rows] = (await this.dataSource.query(
      `UPDATE file_search_vector_store_files f
       SET lease_owner = $1, lease_expires_at = now() + $2 * interval '1 millisecond', attempts = f.attempts + 1
       FROM (
         SELECT vector_store_id, file_id FROM file_search_vector_store_files
         WHERE status = 'in_progress' AND (lease_expires_at IS NULL OR lease_expires_at <= now())
         ORDER BY created_at
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       ) next
       WHERE f.vector_store_id = next.vector_store_id AND f.file_id = next.file_id
       RETURNING f.vector_store_id, f.file_id, f.tenant_id, f.chunk_size, f.chunk_overlap, f.attempts`,
      [token, leaseMs],
    )) as [Omit<LeasedJob, 'token'>[], number];
    return rows[0] && { ...rows[0], token };
  }

  /** Extends the lease; false when the row is no longer the job's (cancelled, deleted, re-added). */
  async renewLease(job: LeasedJob, leaseMs: number): Promise<boolean> {
    const [, affected] = (await this.dataSource.query(
      `UPDATE file_search_vector_store_files SET lease_expires_at = now() + $2 * interval '1 millisecond'
       WHERE vector_store_id = $3 AND file_id = $4 AND lease_owner = $1 AND status = 'in_progress'`,
      [job.token, leaseMs, job.vector_store_id, job.file_id],
    )) as [unknown, number];
    return affected > 0;
  }

  /** Records how far the job got (and the bytes stored so far) while its lease is held. */
  async recordProgress(job: LeasedJob, progress: IngestionProgress, usageBytes: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE file_search_vector_store_files SET progress = $2, usage_bytes = $3
       WHERE vector_store_id = $4 AND file_id = $5 AND lease_owner = $1 AND status = 'in_progress'`,
      [job.token, JSON.stringify(progress), usageBytes, job.vector_store_id, job.file_id],
    );
  }

  /** Marks the job completed if its lease is still held; false when it is not. */
  async complete(
    job: LeasedJob,
    usageBytes: number,
    progress: IngestionProgress,
    manager: EntityManager,
  ): Promise<boolean> {
    const [, affected] = (await manager.query(
      `UPDATE file_search_vector_store_files
       SET status = 'completed', usage_bytes = $2, progress = $3, lease_owner = NULL, lease_expires_at = NULL,
           last_error_code = NULL, last_error_message = NULL
       WHERE vector_store_id = $4 AND file_id = $5 AND lease_owner = $1 AND status = 'in_progress'`,
      [job.token, usageBytes, JSON.stringify(progress), job.vector_store_id, job.file_id],
    )) as [unknown, number];
    return affected > 0;
  }

  /** Marks the job failed if its lease is still held; false when it is not. */
  async fail(job: LeasedJob, code: IngestionErrorCode, message: string, manager: EntityManager): Promise<boolean> {
    const [, affected] = (await manager.query(
      `UPDATE file_search_vector_store_files
       SET status = 'failed', last_error_code = $2, last_error_message = $3, lease_owner = NULL, lease_expires_at = NULL
       WHERE vector_store_id = $4 AND file_id = $5 AND lease_owner = $1 AND status = 'in_progress'`,
      [job.token, code, message, job.vector_store_id, job.file_id],
    )) as [unknown, number];
    return affected > 0;
  }

  /** Gives the job back to the queue, not to be claimed again for `delayMs`. */
  async releaseLease(job: LeasedJob, delayMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE file_search_vector_store_files SET lease_owner = NULL, lease_expires_at = now() + $2 * interval '1 millisecond'
       WHERE vector_store_id = $3 AND file_id = $4 AND lease_owner = $1 AND status = 'in_progress'`,
      [job.token, delayMs, job.vector_store_id, job.file_id],
    );
  }

  /** Gives back at once every job leased under tokens starting with `ownerPrefix`, uncounting their attempt. */
  async releaseLeasesOf(ownerPrefix: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE file_search_vector_store_files SET lease_owner = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0)
       WHERE lease_owner LIKE $1 AND status = 'in_progress'`,
      [`${ownerPrefix}%`],
    );
  }
}

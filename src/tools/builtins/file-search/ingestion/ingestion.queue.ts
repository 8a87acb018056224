import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Chunking } from '../validation';
import type { Attributes } from '../vector-store-files/vector-store-file.entity';

export interface IngestionRequest {
  fileId: string;
  attributes: Attributes | null;
  chunking: Chunking;
}

/**
 * Creates ingestion jobs: a vector store file row in `in_progress`. Adding a file that is already in the
 * store indexes it again with the new attributes and chunking. Workers on this replica start at once;
 * other replicas find the job on their next poll.
 */
@Injectable()
export class IngestionQueue {
  private readonly listeners = new Set<() => void>();

  constructor(private readonly dataSource: DataSource) {}

  async enqueue(
    tenantId: string,
    vectorStoreId: string,
    requests: IngestionRequest[],
    batchId: string | null = null,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    if (requests.length === 0) return;
    // One row per file: the last request for a file wins, as if they had been sent one after another.
    requests = [...new Map(requests.map((r) => [r.fileId, r])).values()];
    const now = new Date();
    await manager.query(
      `INSERT INTO file_search_vector_store_files
         (vector_store_id, file_id, tenant_id, batch_id, status, chunk_size, chunk_overlap, attributes, created_at)
       SELECT $1, r.file_id, $2, $3, 'in_progress', r.chunk_size, r.chunk_overlap, r.attributes, $4
       FROM unnest($5::varchar[], $6::int[], $7::int[], $8::jsonb[]) AS r (file_id, chunk_size, chunk_overlap, attributes)
       ON CONFLICT (vector_store_id, file_id) DO UPDATE SET
         batch_id = EXCLUDED.batch_id, status = 'in_progress', usage_bytes = 0,
         last_error_code = NULL, last_error_message = NULL,
         chunk_size = EXCLUDED.chunk_size, chunk_overlap = EXCLUDED.chunk_overlap, attributes = EXCLUDED.attributes,
         attempts = 0, lease_owner = NULL, lease_expires_at = NULL`,
      [
        vectorStoreId,
        tenantId,
        batchId,
        now,
        requests.map((r) => r.fileId),
        requests.map((r) => r.chunking.size),
        requests.map((r) => r.chunking.overlap),
        requests.map((r) => (r.attributes === null ? null : JSON.stringify(r.attributes))),
      ],
    );
  }

  /** Tells this replica's idle workers that there is work. */
  wake(): void {
    for (const listener of this.listeners) listener();
  }

  onWake(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

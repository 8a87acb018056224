import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '../../../../common/clock';
import { IngestionRequest, VectorStoreFileRepository } from '../vector-store-files/vector-store-file.repository';

/**
 * Creates ingestion jobs: a vector store file row in `in_progress`. Adding a file that is already in the
 * store indexes it again with the new attributes and chunking. Workers on this replica start at once;
 * other replicas find the job on their next poll.
 */
@Injectable()
export class IngestionQueue {
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly storeFiles: VectorStoreFileRepository,
    private readonly clock: Clock,
  ) {}

  async enqueue(
    tenantId: string,
    vectorStoreId: string,
    requests: IngestionRequest[],
    batchId: string | null = null,
    manager?: EntityManager,
  ): Promise<void> {
    if (requests.length === 0) return;
    // One row per file: the last request for a file wins, as if they had been sent one after another.
    requests = [...new Map(requests.map((r) => [r.fileId, r])).values()];
    await this.storeFiles.enqueue(tenantId, vectorStoreId, requests, batchId, this.clock.now(), manager);
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

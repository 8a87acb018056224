import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { handled } from '../../../../common/handled';
import { BackgroundTasks, RepeatingTask } from '../../../../observability/background';
import { FileEntity } from '../files/file.entity';
import { FileRepository } from '../files/file.repository';
import { FilesService } from '../files/files.service';
import { FileSearchSettings } from '../file-search.config';
import { FileSearchMetrics } from '../file-search.metrics';
import { LeasedJob, VectorStoreFileRepository } from '../vector-store-files/vector-store-file.repository';
import { ChunkRepository } from './chunk.repository';
import type { Chunk } from './chunker';
import { DocumentThreads } from './document-thread';
import type { EmbeddingRequest } from './embedding-requests';
import { IngestionError } from './ingestion-error';
import { ProgressReport } from './ingestion-progress';
import { IngestionQueue } from './ingestion.queue';
import { VectorIndex } from './vector-index';

/** Chunks embedded and written together: bounds memory and the size of each statement. */
const WRITE_BATCH = 128;
/** Bytes of one stored float in a vector, for usage_bytes. */
const FLOAT_BYTES = 4;
/** Longest pause between retries of a job that failed for a passing reason (embedding service down). */
const MAX_RETRY_DELAY_MS = 60_000;
/** How often the sweep of abandoned uploads and expired files runs. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

class LeaseLost extends Error {}

/**
 * Runs ingestion jobs: claims an `in_progress` vector store file with FOR UPDATE SKIP LOCKED under a lease
 * (renewed while it runs), parses, chunks, embeds and stores it, then completes it in one transaction that
 * checks the lease is still its own. A crashed worker's jobs are taken over when their lease runs out; on
 * shutdown the leases are released so a restart resumes at once. Cancelled or re-added files are noticed
 * at the next renewal and their partial chunks removed.
 */
@Injectable()
export class IngestionWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('FileSearchIngestion');
  private readonly owner = `${process.pid}:${randomUUID()}`;
  private readonly stopping = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private readonly sleepers = new Set<() => void>();
  private readonly threads = new DocumentThreads();
  private unsubscribe?: () => void;
  private sweeper?: RepeatingTask;

  constructor(
    private readonly dataSource: DataSource,
    private readonly storeFiles: VectorStoreFileRepository,
    private readonly chunks: ChunkRepository,
    private readonly fileRows: FileRepository,
    private readonly settings: FileSearchSettings,
    private readonly files: FilesService,
    private readonly index: VectorIndex,
    private readonly queue: IngestionQueue,
    private readonly metrics: FileSearchMetrics,
    private readonly background: BackgroundTasks,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.queue.onWake(() => this.wakeAll());
    for (let slot = 0; slot < this.settings.workers; slot++) {
      this.loops.push(this.background.settle('file_search_worker', this.loop()).then(() => undefined));
    }
    this.sweeper = this.background.every('file_search_upload_sweep', SWEEP_INTERVAL_MS, () => this.files.sweep());
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await this.sweeper?.stop();
    this.stopping.abort();
    this.wakeAll();
    await Promise.all(this.loops);
    this.threads.close();
    // Jobs interrupted by the shutdown go back to the queue at once, for the next start or another replica.
    await this.storeFiles
      .releaseLeasesOf(`${this.owner}:`)
      .catch((error: unknown) => this.logger.warn(`Could not release ingestion leases: ${String(error)}`));
  }

  private async loop(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      let job: LeasedJob | undefined;
      try {
        job = await this.claim();
      } catch (error) {
        if (!this.stopping.signal.aborted) this.logger.warn(`Claiming an ingestion job failed: ${String(error)}`);
      }
      if (job) await this.run(job);
      else await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.settings.pollIntervalMs);
      this.sleepers.add(done);
    });
  }

  private wakeAll(): void {
    for (const wake of [...this.sleepers]) wake();
  }

  /** Takes the oldest unleased job under a lease of its own. */
  private claim(): Promise<LeasedJob | undefined> {
    return this.storeFiles.claim(`${this.owner}:${randomUUID()}`, this.settings.jobLeaseMs);
  }

  private async run(job: LeasedJob): Promise<void> {
    const abort = new AbortController();
    const stop = () => abort.abort(new LeaseLost('shutdown'));
    this.stopping.signal.addEventListener('abort', stop, { once: true });
    const renew = setInterval(
      () => this.background.run('file_search_lease_renewal', () => this.renew(job, abort)),
      Math.max(200, this.settings.jobLeaseMs / 3),
    );
    let report: ProgressReport | undefined;
    try {
      if (job.attempts > this.settings.maxAttempts) {
        await this.fail(
          job,
          new IngestionError('server_error', `Indexing failed ${job.attempts - 1} times; giving up`),
        );
        return;
      }
      const file = await this.fileRows.findById(job.file_id);
      if (!file) return; // deleted meanwhile: the row went with it
      report = new ProgressReport(job, file, this.storeFiles, this.logger);
      await this.ingest(job, file, report, abort.signal);
      await this.complete(job, report);
    } catch (error) {
      if (error instanceof IngestionError) {
        report?.failed(error.code, error.message);
        await this.fail(job, error);
      } else if (abort.signal.aborted) await this.abandon(job);
      else await this.retryLater(job, error);
    } finally {
      clearInterval(renew);
      this.stopping.signal.removeEventListener('abort', stop);
    }
  }

  /** Extends the lease; when the row is no longer ours (cancelled, deleted, re-added) the job stops. */
  private async renew(job: LeasedJob, abort: AbortController): Promise<void> {
    const held = await this.storeFiles.renewLease(job, this.settings.jobLeaseMs);
    if (!held) abort.abort(new LeaseLost('lease lost'));
  }

  /**
   * Reads the file and hands its bytes to a document thread, which parses, chunks, tokenizes and builds the
   * embedding requests. Each batch it sends back is embedded while the batch before it is stored, and the
   * thread prepares the next one meanwhile. Batches are stored one at a time and in order, so the stored chunks
   * are always a prefix of the file; at most two batches are being embedded, so memory stays bounded.
   */
  private async ingest(job: LeasedJob, file: FileEntity, report: ProgressReport, signal: AbortSignal): Promise<void> {
    await report.parsing();
    const bytes = await this.files.readAll(file);
    // Only the shape of the requests: the service's address and key stay on this side.
    const embedding = this.index.embedder && this.settings.embedding;
    const events = this.threads.index(
      {
        filename: file.filename,
        bytes,
        limits: this.settings.parseLimits,
        chunking: { size: job.chunk_size, overlap: job.chunk_overlap },
        embedding: embedding ? { model: embedding.model, batchSize: embedding.batchSize } : undefined,
        batchChunks: WRITE_BATCH,
      },
      signal,
    );
    let storing: Promise<void> = Promise.resolve();
    try {
      for await (const event of events) {
        signal.throwIfAborted();
        if (event.type === 'parsed') {
          await report.parsed(event.characters);
          continue;
        }
        const vectors = handled(this.embed(event.requests, signal));
        await storing;
        storing = handled(
          vectors
            .then((embedded) => this.store(job, event.chunks, embedded, signal))
            .then((bytesStored) => report.stored(event.chunks.length, event.charactersDone, bytesStored)),
        );
      }
      await storing;
    } finally {
      // Nothing may still be writing when the job is failed, retried or abandoned.
      await storing.catch(() => undefined);
    }
  }

  /** The batch's vectors, when an embedding service is configured. */
  private async embed(requests: EmbeddingRequest[], signal: AbortSignal): Promise<number[][] | undefined> {
    const { embedder } = this.index;
    return embedder && requests.length > 0 ? embedder.send(requests, signal) : undefined;
  }

  /** Upserts a batch's chunks and their vectors; returns the bytes stored. */
  private async store(
    job: LeasedJob,
    chunks: Chunk[],
    vectors: number[][] | undefined,
    signal: AbortSignal,
  ): Promise<number> {
    signal.throwIfAborted();
    const { backend, collection } = this.index;
    const idByIndex = await this.chunks.upsert(
      { tenantId: job.tenant_id, vectorStoreId: job.vector_store_id, fileId: job.file_id },
      chunks,
    );
    let bytes = chunks.reduce((sum, c) => sum + Buffer.byteLength(c.text), 0);
    if (vectors && backend && collection) {
      await backend.upsert(
        collection,
        chunks.map((chunk, i) => ({
          id: idByIndex.get(chunk.index)!,
          vector: vectors[i],
          vectorStoreId: job.vector_store_id,
        })),
      );
      bytes += vectors.length * vectors[0].length * FLOAT_BYTES;
    }
    return bytes;
  }

  /** Completes the file if the lease is still ours, dropping chunks left from a longer earlier version. */
  private async complete(job: LeasedJob, report: ProgressReport): Promise<void> {
    const chunks = report.progress.chunks_done;
    const completed = await this.dataSource.transaction(async (manager) => {
      if (!(await this.storeFiles.complete(job, report.usageBytes, report.done(), manager))) return false;
      await this.chunks.deleteFrom(job.vector_store_id, job.file_id, chunks, manager);
      return true;
    });
    if (!completed) return this.abandon(job);
    this.metrics.documents.inc({ vector_store_id: job.vector_store_id });
    this.metrics.chunks.inc({ vector_store_id: job.vector_store_id }, chunks);
  }

  private async fail(job: LeasedJob, error: IngestionError): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (await this.storeFiles.fail(job, error.code, error.message.slice(0, 1000), manager)) {
        await this.chunks.deleteAll(job.vector_store_id, job.file_id, manager);
      }
    });
  }

  /**
   * The job is no longer ours. If the file was cancelled its partial chunks go; if it was taken over or
   * re-added, the new owner rewrites every chunk itself; on shutdown the lease is released afterwards.
   */
  private async abandon(job: LeasedJob): Promise<void> {
    await this.background.settle(
      'file_search_abandon',
      this.chunks.deleteIfCancelled(job.vector_store_id, job.file_id),
    );
  }

  /** A passing failure (embedding service, database): the job waits a while and is claimed again. */
  private async retryLater(job: LeasedJob, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    this.logger.warn(`Indexing ${job.file_id} in ${job.vector_store_id} failed (attempt ${job.attempts}): ${message}`);
    if (job.attempts >= this.settings.maxAttempts) {
      return this.fail(job, new IngestionError('server_error', `Indexing failed: ${message}`));
    }
    const delay = Math.min(MAX_RETRY_DELAY_MS, 1000 * 2 ** job.attempts);
    // If this write fails the lease simply runs out and the job is claimed again, only later.
    await this.background.settle('file_search_retry_later', this.storeFiles.releaseLease(job, delay));
  }
}

import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BackgroundTasks, RepeatingTask } from '../../../../observability/background';
import { FileEntity } from '../files/file.entity';
import { FilesService } from '../files/files.service';
import { FileSearchSettings } from '../file-search.config';
import { FileSearchMetrics } from '../file-search.metrics';
import { chunkText, Chunk } from './chunker';
import { IngestionError } from './ingestion-error';
import { IngestionQueue } from './ingestion.queue';
import { parseInThread } from './parse-thread';
import { VectorIndex } from './vector-index';

/** A claimed job: the vector store file row's fields the worker needs. */
interface Job {
  vector_store_id: string;
  file_id: string;
  tenant_id: string;
  chunk_size: number;
  chunk_overlap: number;
  attempts: number;
}

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
  private unsubscribe?: () => void;
  private sweeper?: RepeatingTask;

  constructor(
    private readonly dataSource: DataSource,
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
    // Jobs interrupted by the shutdown go back to the queue at once, for the next start or another replica.
    await this.dataSource
      .query(
        `UPDATE file_search_vector_store_files SET lease_owner = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0)
         WHERE lease_owner LIKE $1 AND status = 'in_progress'`,
        [`${this.owner}:%`],
      )
      .catch((error: unknown) => this.logger.warn(`Could not release ingestion leases: ${String(error)}`));
  }

  private async loop(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      let job: (Job & { token: string }) | undefined;
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

  /** Takes the oldest unleased job; SKIP LOCKED lets workers of every replica claim side by side. */
  private async claim(): Promise<(Job & { token: string }) | undefined> {
    const token = `${this.owner}:${randomUUID()}`;
    const [rows] = (await this.dataSource.query(
      `UPDATE file_search_vector_store_files f
       SET lease_owner = $1, lease_expires_at = now() + $2 * interval '1 millisecond', attempts = f.attempts + 1
       FROM (
         SELECT vector_store_id, file_id FROM file_search_vector_store_files
         WHERE status = 'in_progress' AND (lease_expires_at IS NULL OR lease_expires_at < now())
         ORDER BY created_at
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       ) next
       WHERE f.vector_store_id = next.vector_store_id AND f.file_id = next.file_id
       RETURNING f.vector_store_id, f.file_id, f.tenant_id, f.chunk_size, f.chunk_overlap, f.attempts`,
      [token, this.settings.jobLeaseMs],
    )) as [Job[], number];
    return rows[0] && { ...rows[0], token };
  }

  private async run(job: Job & { token: string }): Promise<void> {
    const abort = new AbortController();
    const stop = () => abort.abort(new LeaseLost('shutdown'));
    this.stopping.signal.addEventListener('abort', stop, { once: true });
    const renew = setInterval(
      () => this.background.run('file_search_lease_renewal', () => this.renew(job, abort)),
      Math.max(200, this.settings.jobLeaseMs / 3),
    );
    try {
      if (job.attempts > this.settings.maxAttempts) {
        await this.fail(
          job,
          new IngestionError('server_error', `Indexing failed ${job.attempts - 1} times; giving up`),
        );
        return;
      }
      const file = await this.dataSource.getRepository(FileEntity).findOneBy({ id: job.file_id });
      if (!file) return; // deleted meanwhile: the row went with it
      const { chunks, usageBytes } = await this.ingest(job, file, abort.signal);
      await this.complete(job, chunks, usageBytes);
    } catch (error) {
      if (error instanceof IngestionError) await this.fail(job, error);
      else if (abort.signal.aborted) await this.abandon(job);
      else await this.retryLater(job, error);
    } finally {
      clearInterval(renew);
      this.stopping.signal.removeEventListener('abort', stop);
    }
  }

  /** Extends the lease; when the row is no longer ours (cancelled, deleted, re-added) the job stops. */
  private async renew(job: Job & { token: string }, abort: AbortController): Promise<void> {
    const [, affected] = (await this.dataSource.query(
      `UPDATE file_search_vector_store_files SET lease_expires_at = now() + $2 * interval '1 millisecond'
       WHERE vector_store_id = $3 AND file_id = $4 AND lease_owner = $1 AND status = 'in_progress'`,
      [job.token, this.settings.jobLeaseMs, job.vector_store_id, job.file_id],
    )) as [unknown, number];
    if (affected === 0) abort.abort(new LeaseLost('lease lost'));
  }

  private async ingest(
    job: Job & { token: string },
    file: FileEntity,
    signal: AbortSignal,
  ): Promise<{ chunks: number; usageBytes: number }> {
    const bytes = await this.files.readAll(file);
    const text = await parseInThread(file.filename, bytes, this.settings.parseLimits, signal);
    signal.throwIfAborted();
    let written = 0;
    let usageBytes = 0;
    let batch: Chunk[] = [];
    const flush = async () => {
      usageBytes += await this.write(job, batch, signal);
      written += batch.length;
      batch = [];
    };
    for (const chunk of chunkText(text, job.chunk_size, job.chunk_overlap)) {
      batch.push(chunk);
      if (batch.length >= WRITE_BATCH) await flush();
    }
    if (batch.length > 0) await flush();
    return { chunks: written, usageBytes };
  }

  /** Embeds a batch (when an embedding service is configured) and upserts its chunks and vectors. */
  private async write(job: Job, chunks: Chunk[], signal: AbortSignal): Promise<number> {
    const { embedder, backend, collection } = this.index;
    const vectors = embedder
      ? await embedder.embed(
          chunks.map((c) => c.text),
          signal,
        )
      : undefined;
    signal.throwIfAborted();
    const rows = (await this.dataSource.query(
      `INSERT INTO file_search_chunks (tenant_id, vector_store_id, file_id, chunk_index, text, token_count)
       SELECT $1, $2, $3, c.chunk_index, c.text, c.token_count
       FROM unnest($4::int[], $5::text[], $6::int[]) AS c (chunk_index, text, token_count)
       ON CONFLICT (vector_store_id, file_id, chunk_index)
         DO UPDATE SET text = EXCLUDED.text, token_count = EXCLUDED.token_count
       RETURNING id::text AS id, chunk_index`,
      [
        job.tenant_id,
        job.vector_store_id,
        job.file_id,
        chunks.map((c) => c.index),
        chunks.map((c) => c.text),
        chunks.map((c) => c.tokens),
      ],
    )) as { id: string; chunk_index: number }[];
    let bytes = chunks.reduce((sum, c) => sum + Buffer.byteLength(c.text), 0);
    if (vectors && backend && collection) {
      const idByIndex = new Map(rows.map((row) => [row.chunk_index, row.id]));
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
  private async complete(job: Job & { token: string }, chunks: number, usageBytes: number): Promise<void> {
    const completed = await this.dataSource.transaction(async (manager) => {
      const [, affected] = (await manager.query(
        `UPDATE file_search_vector_store_files
         SET status = 'completed', usage_bytes = $2, lease_owner = NULL, lease_expires_at = NULL,
             last_error_code = NULL, last_error_message = NULL
         WHERE vector_store_id = $3 AND file_id = $4 AND lease_owner = $1 AND status = 'in_progress'`,
        [job.token, usageBytes, job.vector_store_id, job.file_id],
      )) as [unknown, number];
      if (affected === 0) return false;
      await manager.query(
        'DELETE FROM file_search_chunks WHERE vector_store_id = $1 AND file_id = $2 AND chunk_index >= $3',
        [job.vector_store_id, job.file_id, chunks],
      );
      return true;
    });
    if (!completed) return this.abandon(job);
    this.metrics.documents.inc({ vector_store_id: job.vector_store_id });
    this.metrics.chunks.inc({ vector_store_id: job.vector_store_id }, chunks);
  }

  private async fail(job: Job & { token: string }, error: IngestionError): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [, affected] = (await manager.query(
        `UPDATE file_search_vector_store_files
         SET status = 'failed', last_error_code = $2, last_error_message = $3, lease_owner = NULL, lease_expires_at = NULL
         WHERE vector_store_id = $4 AND file_id = $5 AND lease_owner = $1 AND status = 'in_progress'`,
        [job.token, error.code, error.message.slice(0, 1000), job.vector_store_id, job.file_id],
      )) as [unknown, number];
      if (affected > 0) {
        await manager.query('DELETE FROM file_search_chunks WHERE vector_store_id = $1 AND file_id = $2', [
          job.vector_store_id,
          job.file_id,
        ]);
      }
    });
  }

  /**
   * The job is no longer ours. If the file was cancelled its partial chunks go; if it was taken over or
   * re-added, the new owner rewrites every chunk itself; on shutdown the lease is released afterwards.
   */
  private async abandon(job: Job): Promise<void> {
    await this.background.settle(
      'file_search_abandon',
      this.dataSource.query(
        `DELETE FROM file_search_chunks c USING file_search_vector_store_files f
         WHERE c.vector_store_id = $1 AND c.file_id = $2
           AND f.vector_store_id = c.vector_store_id AND f.file_id = c.file_id AND f.status = 'cancelled'`,
        [job.vector_store_id, job.file_id],
      ),
    );
  }

  /** A passing failure (embedding service, database): the job waits a while and is claimed again. */
  private async retryLater(job: Job & { token: string }, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    this.logger.warn(`Indexing ${job.file_id} in ${job.vector_store_id} failed (attempt ${job.attempts}): ${message}`);
    if (job.attempts >= this.settings.maxAttempts) {
      return this.fail(job, new IngestionError('server_error', `Indexing failed: ${message}`));
    }
    const delay = Math.min(MAX_RETRY_DELAY_MS, 1000 * 2 ** job.attempts);
    // If this write fails the lease simply runs out and the job is claimed again, only later.
    await this.background.settle(
      'file_search_retry_later',
      this.dataSource.query(
        `UPDATE file_search_vector_store_files SET lease_owner = NULL, lease_expires_at = now() + $2 * interval '1 millisecond'
         WHERE vector_store_id = $3 AND file_id = $4 AND lease_owner = $1 AND status = 'in_progress'`,
        [job.token, delay, job.vector_store_id, job.file_id],
      ),
    );
  }
}

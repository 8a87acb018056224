import type { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { FileEntity } from '../files/file.entity';
import type { IngestionProgress } from '../vector-store-files/vector-store-file.entity';
import type { LeasedJob, VectorStoreFileRepository } from '../vector-store-files/vector-store-file.repository';
import { describeBytes } from './parse-limits';

/**
 * One job's progress, made visible: written to the vector store file (its `progress` and the `usage_bytes`
 * stored so far) after each stored batch, and logged once per stage, so a large file is never a silent
 * `in_progress` with `usage_bytes: 0`.
 */
export class ProgressReport {
  private readonly started = performance.now();
  private stageStarted = this.started;
  readonly progress: IngestionProgress;
  usageBytes = 0;

  constructor(
    private readonly job: LeasedJob,
    private readonly file: FileEntity,
    private readonly storeFiles: VectorStoreFileRepository,
    private readonly logger: Logger,
  ) {
    this.progress = {
      stage: 'parsing',
      file_bytes: file.bytes,
      characters_total: null,
      characters_done: 0,
      chunks_done: 0,
    };
  }

  async parsing(): Promise<void> {
    this.log(`parsing ${this.file.filename} (${describeBytes(this.file.bytes)}), attempt ${this.job.attempts}`);
    await this.save();
  }

  async parsed(characters: number): Promise<void> {
    this.progress.stage = 'indexing';
    this.progress.characters_total = characters;
    this.log(`parsed into ${characters} characters in ${this.lap()}; chunking, embedding and storing`);
    await this.save();
  }

  async stored(chunks: number, charactersDone: number, bytes: number): Promise<void> {
    this.progress.chunks_done += chunks;
    this.progress.characters_done = charactersDone;
    this.usageBytes += bytes;
    await this.save();
  }

  /** The progress to complete the job with. */
  done(): IngestionProgress {
    this.progress.stage = 'done';
    this.progress.characters_done = this.progress.characters_total ?? this.progress.characters_done;
    this.log(
      `completed: ${this.progress.chunks_done} chunks, ${describeBytes(this.usageBytes)} stored, ` +
        `indexing took ${this.lap()} (${formatSeconds(performance.now() - this.started)} in all)`,
    );
    return this.progress;
  }

  failed(code: string, message: string): void {
    this.logger.warn(`${this.prefix()}: failed while ${this.progress.stage} (${code}): ${message}`);
  }

  private save(): Promise<void> {
    return this.storeFiles.recordProgress(this.job, this.progress, this.usageBytes);
  }

  private log(message: string): void {
    this.logger.log(`${this.prefix()}: ${message}`);
  }

  private prefix(): string {
    return `Indexing ${this.job.file_id} in ${this.job.vector_store_id}`;
  }

  /** Time since the last stage began, and a new stage begins. */
  private lap(): string {
    const now = performance.now();
    const lap = formatSeconds(now - this.stageStarted);
    this.stageStarted = now;
    return lap;
  }
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

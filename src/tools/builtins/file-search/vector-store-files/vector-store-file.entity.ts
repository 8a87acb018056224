import { Column, Entity, PrimaryColumn } from 'typeorm';

export type VectorStoreFileStatus = 'in_progress' | 'completed' | 'cancelled' | 'failed';
export type IngestionErrorCode = 'server_error' | 'unsupported_file' | 'invalid_file' | 'file_too_large';
export type Attributes = Record<string, string | number | boolean>;

/**
 * How far a file's ingestion got: `parsing` (text being extracted), `indexing` (chunks being cut, embedded
 * and stored, `characters_done` of `characters_total`), `done`. Kept after a failure: it shows where it failed.
 */
export interface IngestionProgress {
  stage: 'parsing' | 'indexing' | 'done';
  file_bytes: number;
  characters_total: number | null;
  characters_done: number;
  chunks_done: number;
}

const bigintNumber = { to: (v: number) => v, from: (v: string) => Number(v) };

/**
 * A file in a vector store (OpenAI's `vector_store.file`). While `in_progress` the row is also the file's
 * ingestion job: a worker claims it with FOR UPDATE SKIP LOCKED and holds it under a renewed lease.
 */
@Entity({ name: 'file_search_vector_store_files' })
export class VectorStoreFileEntity {
  @PrimaryColumn({ name: 'vector_store_id', type: 'varchar' })
  vectorStoreId: string;

  /** The file's id: OpenAI names a vector store file by the id of the file it holds. */
  @PrimaryColumn({ name: 'file_id', type: 'varchar' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId: string;

  @Column({ name: 'batch_id', type: 'varchar', nullable: true })
  batchId: string | null;

  @Column({ type: 'varchar' })
  status: VectorStoreFileStatus;

  @Column({ name: 'usage_bytes', type: 'bigint', transformer: bigintNumber })
  usageBytes: number;

  @Column({ name: 'last_error_code', type: 'varchar', nullable: true })
  lastErrorCode: IngestionErrorCode | null;

  @Column({ name: 'last_error_message', type: 'varchar', nullable: true })
  lastErrorMessage: string | null;

  @Column({ name: 'chunk_size', type: 'integer' })
  chunkSize: number;

  @Column({ name: 'chunk_overlap', type: 'integer' })
  chunkOverlap: number;

  @Column({ type: 'jsonb', nullable: true })
  attributes: Attributes | null;

  /** Null until a worker starts the job. */
  @Column({ type: 'jsonb', nullable: true })
  progress: IngestionProgress | null;

  @Column({ type: 'integer' })
  attempts: number;

  @Column({ name: 'lease_owner', type: 'varchar', nullable: true })
  leaseOwner: string | null;

  @Column({ name: 'lease_expires_at', type: 'timestamptz', precision: 3, nullable: true })
  leaseExpiresAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}

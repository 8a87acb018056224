import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The file_search tables (issue 7). Plain PostgreSQL only: the vectors live in tables that the pgvector
 * backend creates at run time per embedding dimension, so this migration runs on a server without pgvector.
 */
export class FileSearch1764000300000 implements MigrationInterface {
  name = 'FileSearch1764000300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE file_search_files (
        id varchar PRIMARY KEY,
        tenant_id varchar NOT NULL,
        filename varchar NOT NULL,
        purpose varchar NOT NULL,
        bytes bigint NOT NULL DEFAULT 0,
        state varchar NOT NULL CHECK (state IN ('uploading', 'uploaded')),
        expires_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX file_search_files_tenant_created ON file_search_files (tenant_id, created_at, id)`);
    // File bytes in parts, so an upload is written as it streams in and read back one part at a time.
    await db.query(`
      CREATE TABLE file_search_file_parts (
        file_id varchar NOT NULL REFERENCES file_search_files (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (file_id, seq)
      )`);
    await db.query(`
      CREATE TABLE file_search_vector_stores (
        id varchar PRIMARY KEY,
        tenant_id varchar NOT NULL,
        name varchar NOT NULL DEFAULT '',
        description varchar,
        metadata jsonb NOT NULL DEFAULT '{}',
        expires_after_days integer,
        last_active_at timestamptz(3) NOT NULL DEFAULT now(),
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await db.query(
      `CREATE INDEX file_search_vector_stores_tenant_created ON file_search_vector_stores (tenant_id, created_at, id)`,
    );
    await db.query(`
      CREATE TABLE file_search_file_batches (
        id varchar PRIMARY KEY,
        tenant_id varchar NOT NULL,
        vector_store_id varchar NOT NULL REFERENCES file_search_vector_stores (id) ON DELETE CASCADE,
        cancelled_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // A vector store file is also its own ingestion job: claimed with FOR UPDATE SKIP LOCKED under a lease.
    await db.query(`
      CREATE TABLE file_search_vector_store_files (
        vector_store_id varchar NOT NULL REFERENCES file_search_vector_stores (id) ON DELETE CASCADE,
        file_id varchar NOT NULL REFERENCES file_search_files (id) ON DELETE CASCADE,
        tenant_id varchar NOT NULL,
        batch_id varchar REFERENCES file_search_file_batches (id) ON DELETE SET NULL,
        status varchar NOT NULL CHECK (status IN ('in_progress', 'completed', 'cancelled', 'failed')),
        usage_bytes bigint NOT NULL DEFAULT 0,
        last_error_code varchar,
        last_error_message varchar,
        chunk_size integer NOT NULL,
        chunk_overlap integer NOT NULL,
        attributes jsonb,
        attempts integer NOT NULL DEFAULT 0,
        lease_owner varchar,
        lease_expires_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (vector_store_id, file_id)
      )`);
    await db.query(
      `CREATE INDEX file_search_vsf_store_created ON file_search_vector_store_files (vector_store_id, created_at, file_id)`,
    );
    await db.query(`CREATE INDEX file_search_vsf_batch ON file_search_vector_store_files (batch_id)`);
    await db.query(`CREATE INDEX file_search_vsf_file ON file_search_vector_store_files (file_id)`);
    await db.query(
      `CREATE INDEX file_search_vsf_jobs ON file_search_vector_store_files (created_at) WHERE status = 'in_progress'`,
    );
    await db.query(`
      CREATE TABLE file_search_chunks (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id varchar NOT NULL,
        vector_store_id varchar NOT NULL,
        file_id varchar NOT NULL,
        chunk_index integer NOT NULL,
        text text NOT NULL,
        token_count integer NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
        UNIQUE (vector_store_id, file_id, chunk_index),
        FOREIGN KEY (vector_store_id, file_id)
          REFERENCES file_search_vector_store_files (vector_store_id, file_id) ON DELETE CASCADE
      )`);
    await db.query(`CREATE INDEX file_search_chunks_tsv ON file_search_chunks USING gin (tsv)`);
  }

  async down(db: QueryRunner): Promise<void> {
    const vectorTables = (await db.query(
      `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'file_search_vectors_%'`,
    )) as { tablename: string }[];
    for (const { tablename } of vectorTables) await db.query(`DROP TABLE "${tablename}"`);
    await db.query(`DROP TABLE file_search_chunks`);
    await db.query(`DROP TABLE file_search_vector_store_files`);
    await db.query(`DROP TABLE file_search_file_batches`);
    await db.query(`DROP TABLE file_search_vector_stores`);
    await db.query(`DROP TABLE file_search_file_parts`);
    await db.query(`DROP TABLE file_search_files`);
  }
}

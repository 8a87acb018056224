import type { DataSource, QueryRunner } from 'typeorm';
import { compileFilter, SqlParams } from '../search/filters';
import type { SearchMatch, SearchScope, VectorDocument, VectorStoreBackend } from './vector-store-backend';

/** Raised at start when the database cannot hold vectors; its message says how to fix it. */
export class PgvectorUnavailableError extends Error {}

const NAME = /^[a-z0-9_]{1,40}$/;

/**
 * VectorStoreBackend on pgvector in the service's own database. Tables (`file_search_vectors_<collection>`)
 * are created at run time, never by migrations, so the core schema runs on PostgreSQL without pgvector.
 * Deleting a chunk deletes its vector (foreign key), so stores and files need no separate cleanup here.
 * It is the one owner of those tables and keeps its SQL itself rather than in a `*.repository.ts`: it is a
 * storage backend behind VectorStoreBackend, so that another vector database can replace it whole, and
 * its tables are named at run time by collection, which no entity can map.
 */
export class PgvectorBackend implements VectorStoreBackend {
  private iterativeScan = false;

  constructor(private readonly dataSource: DataSource) {}

  static table(collection: string): string {
    if (!NAME.test(collection)) throw new Error(`Invalid collection name ${JSON.stringify(collection)}`);
    return `file_search_vectors_${collection}`;
  }

  /** Installs the extension if needed; fails with instructions when the server does not have pgvector. */
  async ensureExtension(): Promise<void> {
    try {
      await this.dataSource.query('CREATE EXTENSION IF NOT EXISTS vector');
    } catch (error) {
      const reason = (error as Error).message;
      const missing = /could not open extension control file|extension "vector" is not available/i.test(reason);
      throw new PgvectorUnavailableError(
        missing
          ? `builtins.file_search.embedding_url is set, so file_search needs the pgvector extension, but this ` +
              `PostgreSQL server does not have it (${reason}). Install pgvector on the database server (for example ` +
              `the postgresql-<version>-pgvector package or the pgvector/pgvector image), or remove ` +
              `builtins.file_search.embedding_url to serve full-text search only.`
          : `builtins.file_search.embedding_url is set, so file_search needs the pgvector extension, and creating ` +
              `it failed (${reason}). Have a superuser run "CREATE EXTENSION vector" in this database, or remove ` +
              `builtins.file_search.embedding_url to serve full-text search only.`,
      );
    }
    const [row] = (await this.dataSource.query("SELECT extversion FROM pg_extension WHERE extname = 'vector'")) as {
      extversion: string;
    }[];
    const [major, minor] = (row?.extversion ?? '0.0').split('.').map(Number);
    // 0.8 can keep scanning the HNSW index until enough rows pass the filters.
    this.iterativeScan = major > 0 || minor >= 8;
  }

  async createCollection(name: string, dimensions: number): Promise<void> {
    const table = PgvectorBackend.table(name);
    await this.dataSource.query(`
      CREATE TABLE IF NOT EXISTS ${table} (
        chunk_id bigint PRIMARY KEY REFERENCES file_search_chunks (id) ON DELETE CASCADE,
        vector_store_id varchar NOT NULL,
        embedding vector(${dimensions}) NOT NULL
      )`);
    await this.dataSource.query(
      `CREATE INDEX IF NOT EXISTS ${table}_hnsw ON ${table} USING hnsw (embedding vector_cosine_ops)`,
    );
  }

  async deleteCollection(name: string): Promise<void> {
    await this.dataSource.query(`DROP TABLE IF EXISTS ${PgvectorBackend.table(name)}`);
  }

  async upsert(collection: string, docs: VectorDocument[], runner?: QueryRunner): Promise<void> {
    if (docs.length === 0) return;
    const table = PgvectorBackend.table(collection);
    await (runner ?? this.dataSource).query(
      `INSERT INTO ${table} (chunk_id, vector_store_id, embedding)
       SELECT * FROM unnest($1::bigint[], $2::varchar[], $3::text[]::vector[])
       ON CONFLICT (chunk_id) DO UPDATE SET embedding = EXCLUDED.embedding, vector_store_id = EXCLUDED.vector_store_id`,
      [docs.map((d) => d.id), docs.map((d) => d.vectorStoreId), docs.map((d) => vectorLiteral(d.vector))],
    );
  }

  async delete(collection: string, docIds: string[]): Promise<void> {
    if (docIds.length === 0) return;
    await this.dataSource.query(`DELETE FROM ${PgvectorBackend.table(collection)} WHERE chunk_id = ANY($1::bigint[])`, [
      docIds,
    ]);
  }

  /**
   * Nearest chunks by cosine distance among the scope's completed files, through the HNSW index. With
   * pgvector 0.8 the index scan continues until enough rows pass the filters (strict order).
   */
  async search(collection: string, vector: number[], maxResults: number, scope: SearchScope): Promise<SearchMatch[]> {
    const table = PgvectorBackend.table(collection);
    const params = new SqlParams([vectorLiteral(vector), scope.tenantId, scope.vectorStoreIds, maxResults]);
    const filter = scope.filter ? `AND ${compileFilter(scope.filter, 'f.attributes', params)}` : '';
    const sql = `
      SELECT v.chunk_id::text AS id, 1 - (v.embedding <=> $1::vector) AS score
      FROM ${table} v
      JOIN file_search_chunks c ON c.id = v.chunk_id
      JOIN file_search_vector_store_files f ON f.vector_store_id = c.vector_store_id AND f.file_id = c.file_id
      WHERE v.vector_store_id = ANY($3::varchar[]) AND c.tenant_id = $2 AND f.status = 'completed' ${filter}
      ORDER BY v.embedding <=> $1::vector
      LIMIT $4`;
    const rows = await this.inTransaction(async (runner) => {
      if (this.iterativeScan) await runner.query("SET LOCAL hnsw.iterative_scan = 'strict_order'");
      await runner.query(`SET LOCAL hnsw.ef_search = ${Math.max(40, Math.min(1000, maxResults * 2))}`);
      return (await runner.query(sql, params.values)) as { id: string; score: number }[];
    });
    return rows.map((row) => ({ documentId: row.id, score: Number(row.score) }));
  }

  private async inTransaction<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const result = await work(runner);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      // Rolling back after an error: if the connection is gone the transaction is gone with it.
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }
}

/** pgvector's text form; JSON numbers are exactly what it parses. */
export function vectorLiteral(vector: number[]): string {
  return `[${vector.join(',')}]`;
}

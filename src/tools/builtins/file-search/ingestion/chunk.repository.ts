import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { compileFilter, SqlParams } from '../search/filters';
import type { Attributes } from '../vector-store-files/vector-store-file.entity';
import type { Chunk } from './chunker';
import type { SearchScope } from './vector-store-backend';

/** A chunk found by full-text search, with its ts_rank_cd. */
export interface RankedChunk {
  id: string;
  rank: number;
}

/** A chunk with what a search result shows of it. */
export interface ChunkHit {
  id: string;
  file_id: string;
  text: string;
  attributes: Attributes | null;
  filename: string;
}

/** The file in a store whose chunks are meant. */
export interface ChunkOwner {
  tenantId: string;
  vectorStoreId: string;
  fileId: string;
}

/**
 * file_search_chunks: the parsed text of each file in each store, in chunks with a generated tsvector.
 * Searches read only chunks of completed files, and respect the files' attribute filters.
 */
@Injectable()
export class ChunkRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Writes the chunks (rewriting those with the same index); returns each chunk's id by its index. */
  async upsert(owner: ChunkOwner, chunks: Chunk[]): Promise<Map<number, string>> {
    const rows = (await this.dataSource.query(
      `INSERT INTO file_search_chunks (tenant_id, vector_store_id, file_id, chunk_index, text, token_count)
       SELECT $1, $2, $3, c.chunk_index, c.text, c.token_count
       FROM unnest($4::int[], $5::text[], $6::int[]) AS c (chunk_index, text, token_count)
       ON CONFLICT (vector_store_id, file_id, chunk_index)
         DO UPDATE SET text = EXCLUDED.text, token_count = EXCLUDED.token_count
       RETURNING id::text AS id, chunk_index`,
      [
        owner.tenantId,
        owner.vectorStoreId,
        owner.fileId,
        chunks.map((c) => c.index),
        chunks.map((c) => c.text),
        chunks.map((c) => c.tokens),
      ],
    )) as { id: string; chunk_index: number }[];
    return new Map(rows.map((row) => [row.chunk_index, row.id]));
  }

  /** Deletes the file's chunks from `fromIndex` on (all of them from 0). */
  async deleteFrom(
    vectorStoreId: string,
    fileId: string,
    fromIndex: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.query(
      'DELETE FROM file_search_chunks WHERE vector_store_id = $1 AND file_id = $2 AND chunk_index >= $3',
      [vectorStoreId, fileId, fromIndex],
    );
  }

  /** Deletes all the file's chunks. */
  async deleteAll(vectorStoreId: string, fileId: string, manager: EntityManager): Promise<void> {
    await manager.query('DELETE FROM file_search_chunks WHERE vector_store_id = $1 AND file_id = $2', [
      vectorStoreId,
      fileId,
    ]);
  }

  /** Deletes the file's chunks if the file has been cancelled in that store. */
  async deleteIfCancelled(vectorStoreId: string, fileId: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM file_search_chunks c USING file_search_vector_store_files f
       WHERE c.vector_store_id = $1 AND c.file_id = $2
         AND f.vector_store_id = c.vector_store_id AND f.file_id = c.file_id AND f.status = 'cancelled'`,
      [vectorStoreId, fileId],
    );
  }

  /** Deletes the chunks of the batch's cancelled files. */
  async deleteCancelledInBatch(batchId: string, manager: EntityManager): Promise<void> {
    await manager.query(
      `DELETE FROM file_search_chunks c USING file_search_vector_store_files f
       WHERE f.batch_id = $1 AND f.status = 'cancelled'
         AND c.vector_store_id = f.vector_store_id AND c.file_id = f.file_id`,
      [batchId],
    );
  }

  /** The file's chunk texts in order. */
  async texts(owner: ChunkOwner): Promise<string[]> {
    const rows = (await this.dataSource.query(
      `SELECT text FROM file_search_chunks
       WHERE tenant_id = $1 AND vector_store_id = $2 AND file_id = $3 ORDER BY chunk_index`,
      [owner.tenantId, owner.vectorStoreId, owner.fileId],
    )) as { text: string }[];
    return rows.map((row) => row.text);
  }

  /**
   * Chunks matching any word of `text` (stemmed, English), best ts_rank_cd first. Words are OR-ed: a
   * question rarely shares every word with its answer. The query is read through scalar subqueries so it is
   * built once: joined as a row, the planner inlines its text-to-tsquery cast into every matching row's check
   * and rank (about 15 % of the statement's time over 100k chunks).
   */
  async searchText(scope: SearchScope, text: string, limit: number): Promise<RankedChunk[]> {
    const params = new SqlParams([scope.tenantId, scope.vectorStoreIds, text, limit]);
    const filter = scope.filter ? `AND ${compileFilter(scope.filter, 'f.attributes', params)}` : '';
    return (await this.dataSource.query(
      `WITH q AS (
         SELECT NULLIF(array_to_string(ARRAY(
           SELECT quote_literal(word) FROM unnest(tsvector_to_array(to_tsvector('english', $3))) AS word
         ), ' | '), '')::tsquery AS query
       )
       SELECT c.id::text AS id, ts_rank_cd(c.tsv, (SELECT query FROM q), 32) AS rank
       FROM file_search_chunks c
       JOIN file_search_vector_store_files f ON f.vector_store_id = c.vector_store_id AND f.file_id = c.file_id
       WHERE c.tenant_id = $1 AND c.vector_store_id = ANY($2::varchar[]) AND f.status = 'completed'
         AND c.tsv @@ (SELECT query FROM q) ${filter}
       ORDER BY rank DESC, c.id
       LIMIT $4`,
      params.values,
    )) as RankedChunk[];
  }

  /** The tenant's chunks among `ids`, in no particular order, with their file's name and attributes. */
  async hits(tenantId: string, ids: string[]): Promise<ChunkHit[]> {
    return (await this.dataSource.query(
      `SELECT c.id::text AS id, c.file_id, c.text, f.attributes, fl.filename
       FROM file_search_chunks c
       JOIN file_search_vector_store_files f ON f.vector_store_id = c.vector_store_id AND f.file_id = c.file_id
       JOIN file_search_files fl ON fl.id = c.file_id
       WHERE c.tenant_id = $1 AND c.id = ANY($2::bigint[])`,
      [tenantId, ids],
    )) as ChunkHit[];
  }
}

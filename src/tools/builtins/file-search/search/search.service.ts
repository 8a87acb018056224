import { Injectable } from '@nestjs/common';
import { ApiError } from '../../../../common/api-error';
import { handled } from '../../../../common/handled';
import { FileSearchMetrics } from '../file-search.metrics';
import { MAX_NUM_RESULTS_CAP } from '../file-search.config';
import { ChunkRepository } from '../ingestion/chunk.repository';
import { VectorIndex } from '../ingestion/vector-index';
import type { Attributes } from '../vector-store-files/vector-store-file.entity';
import type { VectorStoreEntity } from '../vector-stores/vector-store.entity';
import { VectorStoresService } from '../vector-stores/vector-stores.service';
import { Filter, parseFilter } from './filters';

/** Reciprocal rank fusion's constant (Cormack et al.): damps the weight of the very first ranks. */
const RRF_K = 60;
const RANKERS = ['auto', 'default-2024-11-15', 'none'];
const MAX_QUERIES = 10;
const MAX_QUERY_CHARS = 4096;

export interface SearchRequest {
  query: string[];
  maxResults: number;
  filter?: Filter;
  scoreThreshold: number;
}

export interface SearchHit {
  file_id: string;
  filename: string;
  score: number;
  attributes: Attributes | null;
  text: string;
}

interface Ranked {
  id: string;
  score: number;
}

/**
 * Search over vector stores' completed files. With an embedding service: hybrid, a vector list (pgvector,
 * one per query) and a full-text list (Postgres tsvector) fused by reciprocal rank, normalized so a chunk
 * ranked first in every list scores 1. Without one: full-text only, scored by ts_rank_cd normalized to
 * rank/(rank+1). Filters become SQL over the files' attributes; score_threshold drops what scores below it.
 */
@Injectable()
export class SearchService {
  constructor(
    private readonly chunks: ChunkRepository,
    private readonly stores: VectorStoresService,
    private readonly index: VectorIndex,
    private readonly metrics: FileSearchMetrics,
  ) {}

  /** Validates the OpenAI-shaped body of POST /v1/vector_stores/{id}/search. */
  parseRequest(body: {
    query: unknown;
    filters?: unknown;
    max_num_results?: number;
    ranking_options?: unknown;
  }): SearchRequest {
    const queries = typeof body.query === 'string' ? [body.query] : body.query;
    if (
      !Array.isArray(queries) ||
      queries.length === 0 ||
      queries.length > MAX_QUERIES ||
      !queries.every((q) => typeof q === 'string' && /\S/.test(q) && q.length <= MAX_QUERY_CHARS)
    ) {
      throw ApiError.invalid(
        `query must be a non-empty string or an array of 1 to ${MAX_QUERIES} such strings (at most ${MAX_QUERY_CHARS} characters each)`,
        'query',
      );
    }
    let scoreThreshold = 0;
    if (body.ranking_options !== undefined && body.ranking_options !== null) {
      const options = body.ranking_options as Record<string, unknown>;
      if (typeof options !== 'object' || Array.isArray(options)) {
        throw ApiError.invalid('ranking_options must be an object', 'ranking_options');
      }
      const extra = Object.keys(options).find((k) => k !== 'ranker' && k !== 'score_threshold');
      if (extra) throw ApiError.invalid(`ranking_options.${extra} is not supported`, `ranking_options.${extra}`);
      if (options.ranker !== undefined && !RANKERS.includes(options.ranker as string)) {
        throw ApiError.invalid(`ranking_options.ranker must be one of ${RANKERS.join(', ')}`, 'ranking_options.ranker');
      }
      const threshold = options.score_threshold;
      if (threshold !== undefined) {
        if (typeof threshold !== 'number' || threshold < 0 || threshold > 1) {
          throw ApiError.invalid(
            'ranking_options.score_threshold must be a number from 0 to 1',
            'ranking_options.score_threshold',
          );
        }
        scoreThreshold = threshold;
      }
    }
    return {
      query: queries as string[],
      maxResults: body.max_num_results ?? 10,
      filter: body.filters === undefined || body.filters === null ? undefined : parseFilter(body.filters),
      scoreThreshold,
    };
  }

  /**
   * Searches the tenant's stores (each must exist and not be expired), best first. The stores are looked up
   * while the ranking queries already run: those read only the tenant's rows of the named stores, so running
   * them early exposes nothing, and their result is dropped when a store turns out to be missing or expired.
   */
  async search(tenantId: string, vectorStoreIds: string[], request: SearchRequest): Promise<SearchHit[]> {
    const started = process.hrtime.bigint();
    const maxResults = Math.min(Math.max(1, request.maxResults), MAX_NUM_RESULTS_CAP);
    const lookups = vectorStoreIds.map((id, i) =>
      this.stores.findUsable(tenantId, id, vectorStoreIds.length > 1 ? `vector_store_ids[${i}]` : 'vector_store_id'),
    );
    const ranking = this.index.embedder
      ? this.hybrid(tenantId, vectorStoreIds, request, maxResults)
      : this.fullText(tenantId, vectorStoreIds, request, maxResults);
    const [ranked, ...found] = await Promise.allSettled([ranking, ...lookups]);
    // A missing or expired store is the answer even when the ranking failed too (the first such store).
    const refused = found.find((result) => result.status === 'rejected');
    if (refused) throw refused.reason;
    if (ranked.status === 'rejected') throw ranked.reason;
    const stores = found.map((result) => (result as PromiseFulfilledResult<VectorStoreEntity>).value);
    const hits = await this.load(
      tenantId,
      ranked.value.filter((r) => r.score >= request.scoreThreshold).slice(0, maxResults),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    for (const store of stores) this.metrics.searchDuration.observe({ vector_store_id: store.id }, seconds);
    await this.stores.touch(stores);
    return hits;
  }

  /** The vector lists (one per query, after embedding it) and the full-text list, started at once and fused. */
  private async hybrid(tenantId: string, ids: string[], request: SearchRequest, maxResults: number): Promise<Ranked[]> {
    const { embedder, backend, collection } = this.index;
    const candidates = Math.min(200, Math.max(20, maxResults * 4));
    // The full-text query needs no vector: it runs while the queries are embedded (its failure is awaited below).
    const lexical = handled(this.lexical(tenantId, ids, request, candidates).then((rows) => rows.map((row) => row.id)));
    const vectors = await embedder!.embed(request.query);
    const lists = await Promise.all([
      ...vectors.map(async (vector) =>
        (
          await backend!.search(collection!, vector, candidates, {
            tenantId,
            vectorStoreIds: ids,
            filter: request.filter,
          })
        ).map((match) => match.documentId),
      ),
      lexical,
    ]);
    const fused = new Map<string, number>();
    for (const list of lists) {
      list.forEach((id, rank) => fused.set(id, (fused.get(id) ?? 0) + 1 / (RRF_K + rank + 1)));
    }
    const best = lists.length / (RRF_K + 1);
    return [...fused.entries()]
      .map(([id, score]) => ({ id, score: score / best }))
      .sort((a, b) => b.score - a.score || Number(a.id) - Number(b.id));
  }

  private async fullText(
    tenantId: string,
    ids: string[],
    request: SearchRequest,
    maxResults: number,
  ): Promise<Ranked[]> {
    return this.lexical(tenantId, ids, request, maxResults);
  }

  /** Chunks matching any of the queries' words, best ts_rank_cd first. */
  private async lexical(tenantId: string, ids: string[], request: SearchRequest, limit: number): Promise<Ranked[]> {
    const rows = await this.chunks.searchText(
      { tenantId, vectorStoreIds: ids, filter: request.filter },
      request.query.join('\n'),
      limit,
    );
    return rows.map((row) => ({ id: row.id, score: Number(row.rank) }));
  }

  private async load(tenantId: string, ranked: Ranked[]): Promise<SearchHit[]> {
    if (ranked.length === 0) return [];
    const rows = await this.chunks.hits(
      tenantId,
      ranked.map((r) => r.id),
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ranked.flatMap(({ id, score }) => {
      const row = byId.get(id);
      if (!row) return [];
      return [
        {
          file_id: row.file_id,
          filename: row.filename,
          score: round(score),
          attributes: row.attributes,
          text: row.text,
        },
      ];
    });
  }
}

function round(score: number): number {
  return Math.round(Math.min(1, Math.max(0, score)) * 1e6) / 1e6;
}

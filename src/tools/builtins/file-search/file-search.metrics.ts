import { Counter, Histogram, Metric } from 'prom-client';
import { LATENCY_BUCKETS } from '../../../observability/metrics.registry';

/**
 * The file_search provider's own metrics. Created unregistered (`registers: []`): the FunctionRegistry puts
 * what `collectors()` returns on the application's own registry.
 */
export class FileSearchMetrics {
  /** Files indexed to completion, per vector store. */
  readonly documents: Counter<'vector_store_id'>;
  /** Chunks written by completed ingestions, per vector store. */
  readonly chunks: Counter<'vector_store_id'>;
  /** Each request to the embedding service that succeeded. */
  readonly embeddingDuration: Histogram;
  /** Each search (hybrid or full-text) per vector store searched. */
  readonly searchDuration: Histogram<'vector_store_id'>;

  constructor(namespace: string) {
    this.documents = new Counter({
      name: `${namespace}_filesearch_documents_total`,
      help: 'Files indexed to completion, by vector store.',
      labelNames: ['vector_store_id'],
      registers: [],
    });
    this.chunks = new Counter({
      name: `${namespace}_filesearch_chunks_total`,
      help: 'Chunks stored by completed file ingestions, by vector store.',
      labelNames: ['vector_store_id'],
      registers: [],
    });
    this.embeddingDuration = new Histogram({
      name: `${namespace}_filesearch_embedding_duration_seconds`,
      help: 'Duration of successful requests to the embedding service in seconds.',
      buckets: LATENCY_BUCKETS,
      registers: [],
    });
    this.searchDuration = new Histogram({
      name: `${namespace}_filesearch_vector_search_duration_seconds`,
      help: 'Duration of vector store searches (hybrid or full-text) in seconds, by vector store.',
      labelNames: ['vector_store_id'],
      buckets: LATENCY_BUCKETS,
      registers: [],
    });
  }

  all(): Metric[] {
    return [this.documents, this.chunks, this.embeddingDuration, this.searchDuration];
  }
}

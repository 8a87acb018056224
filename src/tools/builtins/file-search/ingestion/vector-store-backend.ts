import type { Filter } from '../search/filters';

/** One chunk's vector; the chunk's text and metadata live in file_search_chunks. */
export interface VectorDocument {
  /** The chunk id (file_search_chunks.id). */
  id: string;
  vector: number[];
  vectorStoreId: string;
}

export interface SearchMatch {
  /** The chunk id. */
  documentId: string;
  /** Cosine similarity, -1 to 1. */
  score: number;
}

/** Which chunks a search may return: the tenant's stores, their completed files, attribute filters. */
export interface SearchScope {
  tenantId: string;
  vectorStoreIds: string[];
  filter?: Filter;
}

/**
 * Vector storage behind an interface, so another vector database could replace pgvector. A collection holds
 * vectors of one dimension; pgvector is the implementation here (one table per collection, HNSW cosine index).
 */
export interface VectorStoreBackend {
  createCollection(name: string, dimensions: number): Promise<void>;
  deleteCollection(name: string): Promise<void>;
  upsert(collection: string, docs: VectorDocument[]): Promise<void>;
  delete(collection: string, docIds: string[]): Promise<void>;
  search(collection: string, vector: number[], maxResults: number, scope: SearchScope): Promise<SearchMatch[]>;
}

/** The collection for vectors of a dimension. */
export const collectionFor = (dimensions: number) => `d${dimensions}`;

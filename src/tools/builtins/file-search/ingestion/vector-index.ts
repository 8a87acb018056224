import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AdvisoryLock, withAdvisoryLock } from '../../../../database/advisory-locks';
import { FileSearchMetrics } from '../file-search.metrics';
import { FileSearchSettings } from '../file-search.config';
import { EmbeddingClient, HttpEmbeddingClient } from './embedding-client';
import { PgvectorBackend } from './pgvector.backend';
import { collectionFor } from './vector-store-backend';

export type SearchMode = 'hybrid' | 'full_text';

/**
 * The embedding client and vector backend when an embedding service is configured; neither otherwise
 * (full-text search only). At start it makes sure pgvector and the collection's table exist, and stops
 * start-up with instructions when the database has no pgvector.
 */
@Injectable()
export class VectorIndex implements OnModuleInit {
  readonly embedder?: EmbeddingClient;
  readonly backend?: PgvectorBackend;
  readonly collection?: string;

  constructor(
    private readonly dataSource: DataSource,
    settings: FileSearchSettings,
    metrics: FileSearchMetrics,
  ) {
    if (settings.embedding) {
      this.embedder = new HttpEmbeddingClient(settings.embedding, (seconds) =>
        metrics.embeddingDuration.observe(seconds),
      );
      this.backend = new PgvectorBackend(dataSource);
      this.collection = collectionFor(settings.embedding.dimensions);
    }
  }

  get mode(): SearchMode {
    return this.embedder ? 'hybrid' : 'full_text';
  }

  async onModuleInit(): Promise<void> {
    const { backend, embedder, collection } = this;
    if (!backend || !embedder || !collection) return;
    await withAdvisoryLock(this.dataSource, AdvisoryLock.vectorTables, async () => {
      await backend.ensureExtension();
      await backend.createCollection(collection, embedder.dimensions());
    });
  }
}

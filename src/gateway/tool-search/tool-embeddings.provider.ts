import type { Provider } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { resolveFileSearchSettings } from '../../tools/builtins/file-search/file-search.config';
import { HttpEmbeddingClient } from '../../tools/builtins/file-search/ingestion/embedding-client';
import { ToolEmbeddings } from './tool-embeddings';

/** A search waits at most this long for the embedding service, then ranks lexically. */
const SEARCH_EMBEDDING_TIMEOUT_MS = 5000;

/**
 * search_tools uses the embedding service of `builtins.file_search` (on by default) when it names one;
 * otherwise there is no ToolEmbeddings and search is BM25 alone. The gateway builds its own client from
 * the same settings rather than importing the file_search module, which is not loaded when disabled.
 * A search does not retry: an agent waiting on it is better served by the lexical ranking at once.
 */
export const toolEmbeddingsProvider: Provider = {
  provide: ToolEmbeddings,
  useFactory: (config: AppConfig): ToolEmbeddings | null => {
    const section = (config.builtins as Record<string, { enabled?: boolean } | undefined>).file_search;
    if (section?.enabled === false) return null;
    const embedding = resolveFileSearchSettings(config).embedding;
    if (!embedding) return null;
    const timeoutMs = Math.min(embedding.timeoutMs, SEARCH_EMBEDDING_TIMEOUT_MS);
    return new ToolEmbeddings(new HttpEmbeddingClient({ ...embedding, maxRetries: 0, timeoutMs }), timeoutMs);
  },
  inject: [AppConfig],
};

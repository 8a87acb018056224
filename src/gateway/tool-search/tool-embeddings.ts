import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { EmbeddingClient } from '../../tools/builtins/file-search/ingestion/embedding-client';
import type { ToolDefinition } from '../../tools/tool-executor';
import { words } from './search-terms';
import { parameterText } from './tool-search-index';

/** Characters of one tool's text sent to the embedding service: descriptions come from untrusted sources. */
const MAX_TOOL_TEXT_CHARS = 2000;
/** Memory the cached tool vectors may take, whatever the model's dimensions. */
const CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Vectors of tool definitions from the file_search embedding service, for search_tools. Each tool's text
 * (its name split into words, its description, its parameters' names and descriptions) is embedded once
 * and kept by a hash of that text, least recently used dropped first, shared by every caller: the key is
 * the text itself, so two tenants share a vector only for identical text, and a caller only ever gets
 * vectors of the definitions it asked about. Texts not yet known are embedded together with the query in
 * one request (the client splits it into batches).
 */
export class ToolEmbeddings {
  private readonly logger = new Logger('ToolSearch');
  private readonly vectors = new Map<string, Float32Array>();
  private readonly capacity: number;
  /** Set while the service fails, so a failing service is logged once, not on every search. */
  private failing = false;

  constructor(
    private readonly client: EmbeddingClient,
    /** How long one search waits for all its vectors, however many batches they take. */
    private readonly deadlineMs: number,
  ) {
    this.capacity = Math.max(1, Math.floor(CACHE_BYTES / (4 * client.dimensions())));
  }

  /**
   * Cosine similarity of the query to each definition, in the definitions' order; null when the
   * service failed or timed out, so the caller falls back to the lexical ranking.
   */
  async similarities(
    query: string,
    definitions: readonly ToolDefinition[],
    signal?: AbortSignal,
  ): Promise<number[] | null> {
    const texts = definitions.map(toolText);
    const keys = texts.map(textKey);
    const known = new Map<string, Float32Array>();
    const missing = new Map<string, string>();
    keys.forEach((key, i) => {
      const vector = this.vectors.get(key);
      if (vector) known.set(key, vector);
      else missing.set(key, texts[i]);
    });
    let embedded: number[][];
    try {
      const deadline = AbortSignal.timeout(this.deadlineMs);
      embedded = await this.client.embed(
        [query, ...missing.values()],
        signal ? AbortSignal.any([signal, deadline]) : deadline,
      );
    } catch (error) {
      // The caller went away: nothing is waiting for a ranking.
      if (signal?.aborted) throw error;
      if (!this.failing) {
        this.logger.warn(`search_tools ranks lexically until the embedding service answers: ${String(error)}`);
        this.failing = true;
      }
      return null;
    }
    if (this.failing) this.logger.log('search_tools ranks with embeddings again');
    this.failing = false;
    const queryVector = normalized(embedded[0]);
    [...missing.keys()].forEach((key, i) => known.set(key, normalized(embedded[i + 1])));
    for (const key of keys) this.remember(key, known.get(key)!);
    return keys.map((key) => dot(queryVector, known.get(key)!));
  }

  /** Most recently used last: Map keeps insertion order, so the first key is the one to drop. */
  private remember(key: string, vector: Float32Array): void {
    this.vectors.delete(key);
    this.vectors.set(key, vector);
    if (this.vectors.size > this.capacity) this.vectors.delete(this.vectors.keys().next().value!);
  }
}

/** What a tool is embedded as: words a model reads, not identifiers or JSON. */
export function toolText(definition: ToolDefinition): string {
  const text = [words(definition.name).join(' '), definition.description ?? '', parameterText(definition.parameters)]
    .filter(Boolean)
    .join('\n');
  return text.length > MAX_TOOL_TEXT_CHARS ? text.slice(0, MAX_TOOL_TEXT_CHARS) : text;
}

function textKey(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

function normalized(vector: number[]): Float32Array {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return Float32Array.from(vector, (x) => x / norm);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

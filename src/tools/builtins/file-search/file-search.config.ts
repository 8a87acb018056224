import { z } from 'zod';
import { parseProviderConfig } from '../../../config/config.loader';
import { readSecretFile } from '../../../config/secret-file';
import { duration, flag, integer as anyInteger } from '../../../config/config.schema';
import type { ParseLimits } from './ingestion/parse-limits';

/** OpenAI's bounds for static chunking; `auto` is 800 tokens with 400 overlap. */
export const CHUNK_SIZE_MIN = 100;
export const CHUNK_SIZE_MAX = 4096;
export const AUTO_CHUNKING = { size: 800, overlap: 400 } as const;
/** max_num_results accepts 1 to 50, as OpenAI's search does. */
export const MAX_NUM_RESULTS_CAP = 50;
/** Where the embedding service's API key comes from when no secret file is named. */
export const EMBEDDING_API_KEY_ENV = 'EMBEDDING_API_KEY';

const SECTION = 'builtins.file_search';

const integer = (min: number, max: number) => anyInteger().pipe(z.number().min(min).max(max));
const idList = (prefix: string) =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    z.array(z.string().startsWith(prefix, `expected ids starting with "${prefix}"`)),
  );

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** Sizes are written as "50MB", "512kb", "1gb" (binary units) or as a number of bytes. */
export const byteSize = () =>
  z.union([z.number().int().positive(), z.string()]).transform((value, ctx) => {
    if (typeof value === 'number') return value;
    const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
    if (!match) {
      ctx.addIssue({ code: 'custom', message: 'expected a size such as "50MB", "512KB" or a number of bytes' });
      return z.NEVER;
    }
    return Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]);
  });

export const fileSearchConfigSchema = z
  .object({
    enabled: flag().default(true),
    /** An OpenAI-compatible embeddings endpoint (…/v1/embeddings); without one, search is full-text only. */
    embedding_url: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL of a /v1/embeddings endpoint' })
      .optional(),
    /** Sent as `model`; empty means the service's default model. */
    embedding_model: z.string().default(''),
    /** A file holding the embedding service's API key (a mounted secret); otherwise EMBEDDING_API_KEY, if set. */
    embedding_api_key_file: z.string().min(1).optional(),
    /** Length of the vectors the embedding model returns; required with embedding_url. */
    dimensions: integer(1, 16_000).optional(),
    /** Texts per /v1/embeddings request. */
    embedding_batch_size: integer(1, 2048).default(64),
    /** Embedding requests in flight at once, across all ingestion workers and searches of this process. */
    embedding_concurrency: integer(1, 64).default(4),
    embedding_timeout: duration().pipe(z.number().min(1, 'must be longer than 0')).default(30_000),
    /** Retries of a request answered 429 or 5xx, or that failed or timed out, with exponential backoff. */
    embedding_max_retries: integer(0, 10).default(4),
    /** Default chunking when a request names no chunking_strategy; `auto` is 800/400. */
    chunk_size: integer(CHUNK_SIZE_MIN, CHUNK_SIZE_MAX).default(512),
    chunk_overlap: integer(0, CHUNK_SIZE_MAX / 2).default(50),
    /** Results of the file_search tool when the call does not say. */
    max_results: integer(1, MAX_NUM_RESULTS_CAP).default(10),
    max_file_size: byteSize().default(50 * 1024 * 1024),
    /** Work on one file in its document thread (parsing, chunking, tokenizing) may take this long; then the file fails. */
    parse_timeout: duration().pipe(z.number().min(100, 'must be at least 100ms')).default(60_000),
    /** Heap one file's work may use in its document thread (the tokenizer's comes on top); more fails with file_too_large. */
    parse_memory_limit: byteSize()
      .pipe(z.number().min(32 * 1024 * 1024, 'must be at least 32MB'))
      .default(512 * 1024 * 1024),
    /** Bytes a compressed document (DOCX) may expand to: a zip bomb fails before it is inflated. */
    max_decompressed_size: byteSize().default(256 * 1024 * 1024),
    /** Pages of one PDF, counted before its text is read. */
    max_pages: integer(1, 1_000_000).default(2000),
    /** Characters of text one file may yield. */
    max_extracted_characters: integer(1, 500_000_000).default(100_000_000),
    /** Ingestion jobs this process runs at once (each replica runs its own workers). */
    workers: integer(1, 64).default(2),
    /** How often idle workers look for new jobs (jobs created on this replica start at once). */
    poll_interval: duration().pipe(z.number().min(10, 'must be at least 10ms')).default(1000),
    /** A claimed job is renewed while it runs; a crashed worker's job is taken over after this long. */
    job_lease: duration().pipe(z.number().min(1000, 'must be at least 1s')).default(60_000),
    /** Attempts per file before it fails with server_error. */
    max_attempts: integer(1, 100).default(3),
    /** Stores the file_search tool searches when a call names none and the agent profile has none. */
    vector_store_ids: idList('vs_').default([]),
    /** Per agent profile: the stores its file_search calls search by default. */
    agent_profiles: z.record(z.string(), z.object({ vector_store_ids: idList('vs_') }).strict()).default({}),
  })
  .strict()
  .superRefine((section, ctx) => {
    if (section.chunk_overlap * 2 > section.chunk_size) {
      ctx.addIssue({ code: 'custom', path: ['chunk_overlap'], message: 'must be at most half of chunk_size' });
    }
    if (section.embedding_url && section.dimensions === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['dimensions'],
        message:
          'embedding_url is set, so dimensions must say how long its vectors are (e.g. 384 for all-MiniLM-L6-v2)',
      });
    }
  });

export type FileSearchConfig = z.output<typeof fileSearchConfigSchema>;

export interface EmbeddingSettings {
  url: string;
  model: string;
  apiKey?: string;
  dimensions: number;
  batchSize: number;
  concurrency: number;
  timeoutMs: number;
  maxRetries: number;
}

/**
 * The validated section with secrets resolved: what the provider runs on. Also the injection token
 * (declaration merging gives the class the interface's shape, as AppConfig does).
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export abstract class FileSearchSettings {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface FileSearchSettings {
  embedding?: EmbeddingSettings;
  chunkSize: number;
  chunkOverlap: number;
  maxResults: number;
  maxFileSize: number;
  parseLimits: ParseLimits;
  workers: number;
  pollIntervalMs: number;
  jobLeaseMs: number;
  maxAttempts: number;
  vectorStoreIds: string[];
  agentProfiles: Record<string, string[]>;
}

/**
 * Validates `builtins.file_search` and resolves the embedding API key (from a mounted secret file or the
 * EMBEDDING_API_KEY environment variable, never from the config file). Problems are one-line ConfigErrors.
 */
export function resolveFileSearchSettings(
  config: { builtins: Record<string, unknown> },
  env: NodeJS.ProcessEnv = process.env,
): FileSearchSettings {
  const section = parseProviderConfig(config, 'file_search', fileSearchConfigSchema);
  const embedding: EmbeddingSettings | undefined = section.embedding_url
    ? {
        url: embeddingsEndpoint(section.embedding_url),
        model: section.embedding_model,
        apiKey: apiKey(section.embedding_api_key_file, env),
        dimensions: section.dimensions!,
        batchSize: section.embedding_batch_size,
        concurrency: section.embedding_concurrency,
        timeoutMs: section.embedding_timeout,
        maxRetries: section.embedding_max_retries,
      }
    : undefined;
  return {
    embedding,
    chunkSize: section.chunk_size,
    chunkOverlap: section.chunk_overlap,
    maxResults: section.max_results,
    maxFileSize: section.max_file_size,
    parseLimits: {
      timeoutMs: section.parse_timeout,
      memoryLimitBytes: section.parse_memory_limit,
      maxDecompressedBytes: section.max_decompressed_size,
      maxPages: section.max_pages,
      maxExtractedCharacters: section.max_extracted_characters,
    },
    workers: section.workers,
    pollIntervalMs: section.poll_interval,
    jobLeaseMs: section.job_lease,
    maxAttempts: section.max_attempts,
    vectorStoreIds: section.vector_store_ids,
    agentProfiles: Object.fromEntries(
      Object.entries(section.agent_profiles).map(([profile, value]) => [profile, value.vector_store_ids]),
    ),
  };
}

/** Accepts the endpoint itself or a base URL (http://tei:8080, http://litellm:4000/v1). */
function embeddingsEndpoint(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  if (/\/embeddings$/.test(trimmed)) return trimmed;
  return /\/v1$/.test(trimmed) ? `${trimmed}/embeddings` : `${trimmed}/v1/embeddings`;
}

function apiKey(file: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (!file) return env[EMBEDDING_API_KEY_ENV]?.trim() || undefined;
  return readSecretFile(`${SECTION}.embedding_api_key_file`, file);
}

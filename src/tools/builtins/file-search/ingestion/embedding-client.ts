import { readBoundedText } from '../../../../common/bounded-body';
import { Semaphore } from '../../../../common/semaphore';
import type { EmbeddingSettings } from '../file-search.config';
import { buildEmbeddingRequests, EmbeddingRequest } from './embedding-requests';

/** An embedding service: texts in, one vector per text out. */
export interface EmbeddingClient {
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
  /** The same for requests built elsewhere (buildEmbeddingRequests in the document thread), in their order. */
  send(requests: EmbeddingRequest[], signal?: AbortSignal): Promise<number[][]>;
  dimensions(): number;
}

export class EmbeddingError extends Error {}

/** Room for the answer's own fields (object, model, usage) and per-item keys around the vectors. */
const ENVELOPE_BYTES = 1_048_576;
const MAX_ERROR_BODY_BYTES = 65_536;
const RETRYABLE = new Set([408, 409, 429, 500, 502, 503, 504]);
const BASE_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;

/**
 * A client of any OpenAI-compatible `/v1/embeddings` endpoint (TEI, LiteLLM, vLLM, OpenAI): batches the
 * texts, keeps at most `concurrency` requests in flight, retries 429/5xx, network failures and timeouts
 * with exponential backoff (honouring Retry-After), and checks every vector has the configured length.
 */
export class HttpEmbeddingClient implements EmbeddingClient {
  private readonly slots: Semaphore;

  constructor(
    private readonly settings: EmbeddingSettings,
    private readonly observe: (seconds: number) => void = () => undefined,
  ) {
    this.slots = new Semaphore(settings.concurrency);
  }

  dimensions(): number {
    return this.settings.dimensions;
  }

  embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    return this.send(buildEmbeddingRequests(texts, this.settings), signal);
  }

  async send(requests: EmbeddingRequest[], signal?: AbortSignal): Promise<number[][]> {
    const results = await Promise.all(requests.map((request) => this.slots.run(() => this.request(request, signal))));
    return results.flat();
  }

  private async request(payload: EmbeddingRequest, signal?: AbortSignal): Promise<number[][]> {
    let lastProblem = '';
    for (let attempt = 0; attempt <= this.settings.maxRetries; attempt++) {
      signal?.throwIfAborted();
      const started = process.hrtime.bigint();
      let retryAfterMs: number | undefined;
      try {
        const response = await fetch(this.settings.url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            ...(this.settings.apiKey ? { Authorization: `Bearer ${this.settings.apiKey}` } : {}),
          },
          body: payload.body,
          signal: signal
            ? AbortSignal.any([signal, AbortSignal.timeout(this.settings.timeoutMs)])
            : AbortSignal.timeout(this.settings.timeoutMs),
        });
        if (response.ok) {
          const vectors = this.read(await this.readJson(response, payload.count), payload.count);
          this.observe(Number(process.hrtime.bigint() - started) / 1e9);
          return vectors;
        }
        const body = ((await readBoundedText(response, MAX_ERROR_BODY_BYTES).catch(() => '')) ?? '').slice(0, 300);
        lastProblem = `HTTP ${response.status}${body ? `: ${body}` : ''}`;
        if (!RETRYABLE.has(response.status)) break;
        retryAfterMs = retryAfter(response.headers.get('retry-after'));
      } catch (error) {
        if (signal?.aborted) throw error;
        if (error instanceof EmbeddingError) throw error;
        const name = (error as Error).name;
        lastProblem = name === 'TimeoutError' ? `timed out after ${this.settings.timeoutMs} ms` : String(error);
      }
      if (attempt < this.settings.maxRetries) await sleep(backoff(attempt, retryAfterMs), signal);
    }
    throw new EmbeddingError(`The embedding service at ${this.settings.url} failed: ${lastProblem}`);
  }

  /**
   * The answer, read no further than `count` vectors of the configured length can take (a float written out is
   * at most 25 characters), so a service gone wrong cannot make us buffer more.
   */
  private async readJson(response: Response, count: number): Promise<unknown> {
    const limit = count * this.settings.dimensions * 26 + ENVELOPE_BYTES;
    const text = await readBoundedText(response, limit);
    if (text === null) {
      throw new EmbeddingError(`The embedding service answered more than ${limit} bytes for ${count} texts`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new EmbeddingError('The embedding service answered something that is not JSON');
    }
  }

  private read(body: unknown, expected: number): number[][] {
    const data = (body as { data?: unknown })?.data;
    if (!Array.isArray(data) || data.length !== expected) {
      throw new EmbeddingError(
        `The embedding service answered ${Array.isArray(data) ? data.length : 'no'} vectors for ${expected} texts`,
      );
    }
    const vectors: number[][] = new Array<number[]>(expected);
    data.forEach((item: { embedding?: unknown; index?: unknown }, position) => {
      const index = typeof item.index === 'number' ? item.index : position;
      const embedding = item.embedding;
      if (!Array.isArray(embedding) || embedding.length !== this.settings.dimensions) {
        throw new EmbeddingError(
          `The embedding service returned a vector of length ${Array.isArray(embedding) ? embedding.length : 'unknown'}; ` +
            `builtins.file_search.dimensions is ${this.settings.dimensions}`,
        );
      }
      vectors[index] = embedding as number[];
    });
    if (vectors.some((vector) => vector === undefined))
      throw new EmbeddingError('The embedding service skipped an index');
    return vectors;
  }
}

function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  // Real time, not Clock: an HTTP date is a wall-clock instant, and the wait that follows is a real timer.
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Exponential with full jitter, or what the server asked for (capped). */
function backoff(attempt: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, MAX_BACKOFF_MS);
  return Math.random() * Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

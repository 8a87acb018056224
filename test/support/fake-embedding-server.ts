import { createHash } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for an embedding service (TEI, LiteLLM, OpenAI): a real HTTP server on 127.0.0.1 speaking
 * OpenAI's `/v1/embeddings`. Vectors are a hashed bag of words, so texts sharing words are close and the
 * same text always gets the same vector. Failures and slowness can be switched on; the only mock in the
 * file_search tests, since the real service is remote.
 */
export interface FakeEmbeddingServer {
  url: string;
  dimensions: number;
  /** Requests answered with vectors, and the texts they carried: all together, and request by request. */
  served: number;
  texts: string[];
  batches: string[][];
  /** Authorization headers seen. */
  authorizations: (string | undefined)[];
  /** The next N requests answer this status (429 or 5xx) instead. */
  failNext(count: number, status: number, headers?: Record<string, string>): void;
  /** Forgets failures not yet served. */
  clearFailures(): void;
  /** Each successful request waits this long before answering. */
  delayMs: number;
  close(): Promise<void>;
}

/**
 * Words the fake model takes for others (`{ bookkeeping: 'ledger' }`): the stand-in for a real model's
 * knowledge that different words can mean the same thing.
 */
export type Synonyms = Record<string, string>;

export function embed(text: string, dimensions: number, synonyms: Synonyms = {}): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const found of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const word = Object.hasOwn(synonyms, found) ? synonyms[found] : found;
    const digest = createHash('sha256').update(word.replace(/s$/, '')).digest();
    vector[digest.readUInt32BE(0) % dimensions] += 1;
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => x / norm);
}

export async function startFakeEmbeddingServer(dimensions = 64, synonyms: Synonyms = {}): Promise<FakeEmbeddingServer> {
  const failures: { status: number; headers: Record<string, string> }[] = [];
  const state = {
    served: 0,
    texts: [] as string[],
    batches: [] as string[][],
    authorizations: [] as (string | undefined)[],
    delayMs: 0,
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.authorizations.push(request.headers.authorization);
      if (request.method !== 'POST' || request.url !== '/v1/embeddings') {
        response.writeHead(404).end();
        return;
      }
      const failure = failures.shift();
      if (failure) {
        response.writeHead(failure.status, { 'Content-Type': 'application/json', ...failure.headers });
        response.end(JSON.stringify({ error: { message: 'try again later' } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string | string[]; model?: string };
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      const answer = () => {
        state.served++;
        state.texts.push(...inputs);
        state.batches.push(inputs);
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(
          JSON.stringify({
            object: 'list',
            model: body.model ?? 'fake-bag-of-words',
            // Answered out of order on purpose: clients must place vectors by index.
            data: inputs
              .map((text, index) => ({ object: 'embedding', index, embedding: embed(text, dimensions, synonyms) }))
              .reverse(),
            usage: { prompt_tokens: 0, total_tokens: 0 },
          }),
        );
      };
      if (state.delayMs > 0) setTimeout(answer, state.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    dimensions,
    failNext(count: number, status: number, headers: Record<string, string> = {}) {
      for (let i = 0; i < count; i++) failures.push({ status, headers });
    },
    clearFailures() {
      failures.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

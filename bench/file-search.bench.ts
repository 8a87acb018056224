import { createHash } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import { chunkText } from '../src/tools/builtins/file-search/ingestion/chunker';
import { vectorLiteral } from '../src/tools/builtins/file-search/ingestion/pgvector.backend';
import { BenchApp, engineName, startBenchApp } from './support/harness';

/**
 * file_search benchmarks, each against a baseline measured in the same run on the same database:
 *  1. ingestion throughput (chunks/s, hybrid mode) versus a raw bulk insert of the same chunk and vector rows;
 *  2. search latency over 100k chunks versus the equivalent raw SQL (vector k-NN and full-text queries);
 *  3. peak memory while uploading and ingesting a 50 MB file, versus the file's size.
 * Sizes are bounded so the whole run takes a few minutes on 2 cores.
 */
const DIMENSIONS = 32;
const INGEST_WORDS = 150_000;
const SEARCH_CHUNKS = 100_000;
/** Inputs per embedding request, for the service and for the raw baseline alike. */
const EMBEDDING_BATCH = 256;
const SEARCH_QUERIES = 40;
/** Passes over the queries; each query is timed on every variant in turn, so drift in the machine hits all alike. */
const SEARCH_PASSES = 5;
const BIG_FILE_BYTES = 50 * 1024 * 1024;

export async function run(): Promise<void> {
  const embedder = await startEmbedder();
  try {
    await ingestion(embedder.url);
    await search(embedder.url);
  } finally {
    await embedder.close();
  }
  await memory();
}

async function ingestion(embeddingUrl: string): Promise<void> {
  const app = await startBenchApp({
    builtins: { file_search: hybridConfig(embeddingUrl, { workers: 1, embedding_batch_size: EMBEDDING_BATCH }) },
  });
  try {
    const text = words(INGEST_WORDS, 0);
    const started = performance.now();
    const { storeId, fileId } = await createAndWait(app, 'ingest.txt', Buffer.from(text), {
      type: 'static',
      static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 0 },
    });
    const pipelineSeconds = (performance.now() - started) / 1000;
    const ds = app.toolgate.database.dataSource;
    const [{ n: chunks }] = (await ds.query('SELECT count(*)::int AS n FROM file_search_chunks WHERE file_id = $1', [
      fileId,
    ])) as { n: number }[];

    // Baselines, on a copy of the file: the same text chunked in-process, embedded through the same service
    // in batches of the same size, bulk inserted with plain SQL (parse + embed + insert); and the insert alone.
    const rawFileId = await copyFile(ds, fileId);
    await ds.query(
      `INSERT INTO file_search_vector_store_files (vector_store_id, file_id, tenant_id, status, chunk_size, chunk_overlap, created_at)
       VALUES ($1, $2, 'default', 'completed', 100, 0, now())`,
      [storeId, rawFileId],
    );
    const rawStarted = performance.now();
    const rows = [...chunkText(text, 100, 0)];
    const vectors: number[][] = [];
    for (let start = 0; start < rows.length; start += EMBEDDING_BATCH) {
      const batch = rows.slice(start, start + EMBEDDING_BATCH).map((row) => row.text);
      vectors.push(...(await embedVia(embeddingUrl, ...batch)));
    }
    const insertStarted = performance.now();
    await bulkInsert(ds, storeId, rawFileId, rows, vectors, 2000);
    const rawSeconds = (performance.now() - rawStarted) / 1000;
    const insertSeconds = (performance.now() - insertStarted) / 1000;

    const pipelineRate = chunks / pipelineSeconds;
    const rawRate = rows.length / rawSeconds;
    console.log(`\nfile_search ingestion (hybrid, ${engineName()}, local embedding stub)`);
    console.log(
      `  file: ${(text.length / 1024 / 1024).toFixed(1)} MB, ${chunks} chunks of 100 tokens, ${DIMENSIONS}-d vectors`,
    );
    const insertRate = rows.length / insertSeconds;
    console.log(`  raw chunk + embed + bulk insert: ${rawRate.toFixed(0)} chunks/s (${rawSeconds.toFixed(2)} s)`);
    console.log(`  of which the bulk insert alone: ${insertRate.toFixed(0)} chunks/s (${insertSeconds.toFixed(2)} s)`);
    console.log(
      `  upload + parse + chunk + embed + store: ${pipelineRate.toFixed(0)} chunks/s (${pipelineSeconds.toFixed(2)} s)`,
    );
    console.log(
      `  ratio: pipeline runs at ${((pipelineRate / rawRate) * 100).toFixed(0)}% of raw parse + embed + insert ` +
        `speed, ${((pipelineRate / insertRate) * 100).toFixed(0)}% of the insert alone`,
    );
  } finally {
    await app.close();
  }
}

async function search(embeddingUrl: string): Promise<void> {
  const app = await startBenchApp({ builtins: { file_search: hybridConfig(embeddingUrl) } });
  try {
    const ds = app.toolgate.database.dataSource;
    const { storeId, fileId } = await createAndWait(app, 'seed.txt', Buffer.from('seed document'), undefined);
    const loadStarted = performance.now();
    // 100k chunks of 40 words from a 5,000-word vocabulary, loaded with plain SQL (index built after loading).
    await ds.query(`DROP INDEX file_search_vectors_d${DIMENSIONS}_hnsw`);
    const batch = 5000;
    for (let start = 0; start < SEARCH_CHUNKS; start += batch) {
      const rows = Array.from({ length: batch }, (_, i) => {
        const n = start + i + 1;
        return { index: n, text: sentence(n), tokens: 40 };
      });
      await bulkInsert(
        ds,
        storeId,
        fileId,
        rows,
        rows.map((row) => embed(row.text, DIMENSIONS)),
        batch,
      );
    }
    await ds.query(
      `CREATE INDEX file_search_vectors_d${DIMENSIONS}_hnsw ON file_search_vectors_d${DIMENSIONS} USING hnsw (embedding vector_cosine_ops)`,
    );
    await ds.query('ANALYZE');
    const loadSeconds = (performance.now() - loadStarted) / 1000;

    const queries = Array.from({ length: SEARCH_QUERIES }, (_, i) => `w${(i * 97) % 5000} w${(i * 31) % 5000} w${i}`);
    const api = async (query: string) => {
      const response = await fetch(`${app.baseUrl}/v1/vector_stores/${storeId}/search`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${app.adminKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query, max_num_results: 10 }),
      });
      if (!response.ok) throw new Error(`search answered ${response.status}: ${await response.text()}`);
      await response.json();
    };
    // Baselines: the two ranking queries the hybrid search runs, written by hand with the same tenant and
    // completed-file conditions, run at once; the query vector computed in-process, or asked of the same
    // embedding service as the service asks it (a client of raw SQL needs its vector from somewhere).
    const rawSql = async (query: string, vector: number[]) => {
      await Promise.all([
        ds.query(
          `SELECT v.chunk_id FROM file_search_vectors_d${DIMENSIONS} v
           JOIN file_search_chunks c ON c.id = v.chunk_id
           JOIN file_search_vector_store_files f ON f.vector_store_id = c.vector_store_id AND f.file_id = c.file_id
           WHERE v.vector_store_id = $2 AND c.tenant_id = 'default' AND f.status = 'completed'
           ORDER BY v.embedding <=> $1::vector LIMIT 40`,
          [vectorLiteral(vector), storeId],
        ),
        ds.query(
          `SELECT c.id FROM file_search_chunks c
           JOIN file_search_vector_store_files f ON f.vector_store_id = c.vector_store_id AND f.file_id = c.file_id,
           to_tsquery('english', replace(plainto_tsquery('english', $2)::text, '&', '|')) q
           WHERE c.vector_store_id = $1 AND c.tenant_id = 'default' AND f.status = 'completed' AND c.tsv @@ q
           ORDER BY ts_rank_cd(c.tsv, q, 32) DESC LIMIT 40`,
          [storeId, query],
        ),
      ]);
    };
    const raw = (query: string) => rawSql(query, embed(query, DIMENSIONS));
    const rawWithEmbedding = async (query: string) => rawSql(query, (await embedVia(embeddingUrl, query))[0]);
    for (const query of queries.slice(0, 5)) {
      await api(query);
      await raw(query);
      await rawWithEmbedding(query);
    }
    const [rawTimes, rawEmbeddedTimes, apiTimes] = await timeInTurn(queries, SEARCH_PASSES, [
      raw,
      rawWithEmbedding,
      api,
    ]);
    console.log(
      `\nfile_search search latency over ${SEARCH_CHUNKS.toLocaleString('en')} chunks (hybrid, ${engineName()})`,
    );
    console.log(`  loading ${SEARCH_CHUNKS} chunks + HNSW index: ${loadSeconds.toFixed(1)} s`);
    const ratio = (baseline: number[]) => (Number(p(apiTimes, 50)) / Number(p(baseline, 50))).toFixed(2);
    console.log(`  raw SQL (k-NN + full-text at once), vector computed in-process: ${percentiles(rawTimes)}`);
    console.log(`  the same with the vector from the embedding service: ${percentiles(rawEmbeddedTimes)}`);
    console.log(`  POST /v1/vector_stores/{id}/search (fusion, texts, HTTP): ${percentiles(apiTimes)}`);
    console.log(
      `  ratio (p50): ${ratio(rawEmbeddedTimes)}x raw SQL with the embedding request, ${ratio(rawTimes)}x without`,
    );
  } finally {
    await app.close();
  }
}

async function memory(): Promise<void> {
  const app = await startBenchApp({ builtins: { file_search: { poll_interval: '100ms' } } });
  try {
    global.gc?.();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakHeap = before.heapUsed;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss);
      peakHeap = Math.max(peakHeap, now.heapUsed);
    }, 25);
    const started = performance.now();
    const line = 'The quick brown fox jumps over the lazy dog while the auditors review the ledger. ';
    // The upload body is generated while it is sent, so the client holds no copy of the 50 MB.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        let sent = 0;
        const piece = Buffer.from(line.repeat(Math.ceil((256 * 1024) / line.length)));
        const pump = () => {
          while (sent < BIG_FILE_BYTES) {
            const part = piece.subarray(0, Math.min(piece.length, BIG_FILE_BYTES - sent));
            controller.enqueue(part);
            sent += part.length;
            if (sent % (4 * 1024 * 1024) < piece.length) return void setImmediate(pump);
          }
          controller.close();
        };
        pump();
      },
    });
    const { storeId, fileId } = await createAndWait(app, 'big.txt', body, undefined, BIG_FILE_BYTES);
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    const ds = app.toolgate.database.dataSource;
    const [{ n }] = (await ds.query(
      'SELECT count(*)::int AS n FROM file_search_chunks WHERE vector_store_id = $1 AND file_id = $2',
      [storeId, fileId],
    )) as { n: number }[];
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
    console.log(`\nfile_search memory while uploading and ingesting a 50 MB file (full-text mode, ${engineName()})`);
    const hosted =
      engineName() === 'embedded PGlite' ? "; the process also hosts the database (PGlite's WASM heap)" : '';
    console.log(`  ${n} chunks in ${seconds.toFixed(1)} s${hosted}`);
    console.log(`  RSS: ${mb(before.rss)} MB before, peak ${mb(peakRss)} MB (+${mb(peakRss - before.rss)} MB)`);
    console.log(
      `  JS heap used: ${mb(before.heapUsed)} MB before, peak ${mb(peakHeap)} MB (+${mb(peakHeap - before.heapUsed)} MB)`,
    );
    console.log(`  ratio: peak RSS growth is ${((peakRss - before.rss) / BIG_FILE_BYTES).toFixed(2)}x the file size`);
  } finally {
    await app.close();
  }
}

function hybridConfig(url: string, extra: Record<string, unknown> = {}) {
  return { embedding_url: url, dimensions: DIMENSIONS, poll_interval: '100ms', ...extra };
}

/** Uploads a file straight into a new store (multipart, streamed) and waits until it is indexed. */
async function createAndWait(
  app: BenchApp,
  filename: string,
  content: Buffer | ReadableStream<Uint8Array>,
  chunking: unknown,
  length?: number,
): Promise<{ storeId: string; fileId: string }> {
  const headers = { Authorization: `Bearer ${app.adminKey}` };
  const store = (await (
    await fetch(`${app.baseUrl}/v1/vector_stores`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: filename }),
    })
  ).json()) as { id: string };
  const boundary = `bench${Date.now()}`;
  const head = Buffer.from(
    (chunking ? part(boundary, 'chunking_strategy', JSON.stringify(chunking)) : '') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
      'Content-Type: text/plain\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body =
    content instanceof Buffer
      ? Buffer.concat([head, content, tail])
      : concatStreams(head, content as ReadableStream<Uint8Array>, tail);
  const response = await fetch(`${app.baseUrl}/v1/vector_stores/${store.id}/files`, {
    method: 'POST',
    headers: {
      ...headers,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      ...(length !== undefined ? { 'Content-Length': String(head.length + length + tail.length) } : {}),
    },
    body,
    duplex: 'half',
  } as RequestInit);
  if (!response.ok) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  const file = (await response.json()) as { id: string };
  for (;;) {
    const state = (await (
      await fetch(`${app.baseUrl}/v1/vector_stores/${store.id}/files/${file.id}`, { headers })
    ).json()) as { status: string; last_error: unknown };
    if (state.status === 'completed') return { storeId: store.id, fileId: file.id };
    if (state.status !== 'in_progress')
      throw new Error(`ingestion ended ${state.status}: ${JSON.stringify(state.last_error)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function part(boundary: string, name: string, value: string): string {
  return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
}

function concatStreams(head: Buffer, middle: ReadableStream<Uint8Array>, tail: Buffer): ReadableStream<Uint8Array> {
  const reader = middle.getReader();
  let stage = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (stage === 0) {
        stage = 1;
        return controller.enqueue(head);
      }
      if (stage === 1) {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        stage = 2;
      }
      controller.enqueue(tail);
      controller.close();
    },
  });
}

/** A copy of a file row (the raw baseline needs its own vector store file to insert under). */
async function copyFile(ds: DataSource, fileId: string): Promise<string> {
  const copy = `${fileId}-raw`;
  await ds.query(
    `INSERT INTO file_search_files (id, tenant_id, filename, purpose, bytes, state, created_at)
     SELECT $2, tenant_id, filename, purpose, bytes, state, created_at FROM file_search_files WHERE id = $1`,
    [fileId, copy],
  );
  return copy;
}

async function bulkInsert(
  ds: DataSource,
  storeId: string,
  fileId: string,
  rows: { index: number; text: string; tokens: number }[],
  vectors: number[][],
  batch: number,
): Promise<void> {
  for (let start = 0; start < rows.length; start += batch) {
    const slice = rows.slice(start, start + batch);
    const ids = (await ds.query(
      `INSERT INTO file_search_chunks (tenant_id, vector_store_id, file_id, chunk_index, text, token_count)
       SELECT 'default', $1, $2, c.i, c.t, c.n FROM unnest($3::int[], $4::text[], $5::int[]) AS c (i, t, n)
       RETURNING id::text AS id`,
      [storeId, fileId, slice.map((r) => r.index), slice.map((r) => r.text), slice.map((r) => r.tokens)],
    )) as { id: string }[];
    await ds.query(
      `INSERT INTO file_search_vectors_d${DIMENSIONS} (chunk_id, vector_store_id, embedding)
       SELECT * FROM unnest($1::bigint[], $2::varchar[], $3::text[]::vector[])`,
      [ids.map((r) => r.id), ids.map(() => storeId), vectors.slice(start, start + batch).map(vectorLiteral)],
    );
  }
}

/** Each variant's sorted times (ms): every query, `passes` times over, timed on each variant one after another. */
async function timeInTurn(
  queries: string[],
  passes: number,
  variants: ((query: string) => Promise<void>)[],
): Promise<number[][]> {
  const times = variants.map((): number[] => []);
  for (let pass = 0; pass < passes; pass++) {
    for (const query of queries) {
      for (const [i, work] of variants.entries()) {
        const started = performance.now();
        await work(query);
        times[i].push(performance.now() - started);
      }
    }
  }
  return times.map((list) => list.sort((a, b) => a - b));
}

function percentiles(sorted: number[]): string {
  return `p50 ${p(sorted, 50)} ms, p95 ${p(sorted, 95)} ms`;
}

function p(sorted: number[], percentile: number): string {
  return sorted[Math.min(sorted.length - 1, Math.floor((percentile / 100) * sorted.length))].toFixed(1);
}

function words(count: number, offset: number): string {
  return Array.from({ length: count }, (_, i) => `w${(offset + i * 7919) % 5000}`).join(' ');
}

function sentence(n: number): string {
  return words(40, n * 13);
}

/** Hashed bag of words: a deterministic stand-in for an embedding model. */
function embed(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    vector[createHash('md5').update(word).digest().readUInt32BE(0) % dimensions] += 1;
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => x / norm);
}

/** The embedding of each input, asked of the embedding service as any client would. */
async function embedVia(url: string, ...input: string[]): Promise<number[][]> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'bench', input }),
  });
  const { data } = (await response.json()) as { data: { embedding: number[] }[] };
  return data.map((item) => item.embedding);
}

/** A local `/v1/embeddings` endpoint answering at once, so the figures measure Toolgate, not a model. */
async function startEmbedder(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { input } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string[] };
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(
        JSON.stringify({ data: input.map((text, index) => ({ index, embedding: embed(text, DIMENSIONS) })) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

import OpenAI, { toFile } from 'openai';
import { bearer, startApp, TestApp } from './support/app';
import { createTestDatabase, ENGINES, TestDatabase } from './support/databases';
import { FakeEmbeddingServer, startFakeEmbeddingServer } from './support/fake-embedding-server';
import { waitFor } from './support/wait';

const DIMENSIONS = 64;
const poll = { pollIntervalMs: 50 };

const fileSearchConfig = (embedder: FakeEmbeddingServer, extra: Record<string, unknown> = {}) => ({
  builtins: {
    file_search: {
      embedding_url: embedder.url,
      embedding_model: 'bag-of-words',
      dimensions: DIMENSIONS,
      poll_interval: '100ms',
      embedding_max_retries: 3,
      ...extra,
    },
  },
});

const sdk = (t: TestApp) => new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: t.adminKey, maxRetries: 0 });

/**
 * file_search with an embedding service: hybrid search on pgvector, on both engines (PGlite supplies the extension;
 * the PostgreSQL server has it installed from the release source, see scripts/pgvector.sh).
 */
describe.each(ENGINES)('file_search (hybrid mode, pgvector) on %s', (engine) => {
  let embedder: FakeEmbeddingServer;
  let t: TestApp;
  let client: OpenAI;

  beforeAll(async () => {
    embedder = await startFakeEmbeddingServer(DIMENSIONS);
    process.env.EMBEDDING_API_KEY = 'sk-embedding-test';
    t = await startApp(engine, { config: fileSearchConfig(embedder, { embedding_batch_size: 4 }) });
    delete process.env.EMBEDDING_API_KEY;
    client = sdk(t);
  });
  afterAll(async () => {
    await t?.close();
    await embedder?.close();
  });

  it('embeds every chunk, stores the vectors in a pgvector table and says the store is hybrid', async () => {
    const words = Array.from({ length: 600 }, (_, i) => `token${i}`).join(' ');
    const file = await client.files.create({
      file: await toFile(Buffer.from(words), 'long.txt'),
      purpose: 'assistants',
    });
    const store = await client.vectorStores.create({ name: 'hybrid' });
    const indexed = await client.vectorStores.files.createAndPoll(
      store.id,
      {
        file_id: file.id,
        chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 0 } },
      },
      poll,
    );
    expect(indexed.status).toBe('completed');
    const [{ chunks, vectors }] = await t.toolgate.database.dataSource.query(
      `SELECT (SELECT count(*)::int FROM file_search_chunks WHERE file_id = $1) AS chunks,
              (SELECT count(*)::int FROM file_search_vectors_d${DIMENSIONS} v JOIN file_search_chunks c ON c.id = v.chunk_id WHERE c.file_id = $1) AS vectors`,
      [file.id],
    );
    expect(chunks).toBeGreaterThan(4);
    expect(vectors).toBe(chunks);
    // Batches of at most 4 texts per request, with the API key from EMBEDDING_API_KEY. Only this file's batches
    // are counted: a batch cancelled by another test may still have requests on their way.
    const ownBatches = embedder.batches.filter((batch) => batch.some((text) => text.includes('token')));
    expect(ownBatches).toHaveLength(Math.ceil(chunks / 4));
    expect(embedder.authorizations.at(-1)).toBe('Bearer sk-embedding-test');
    expect(indexed.usage_bytes).toBeGreaterThan(chunks * DIMENSIONS * 4);
    expect(await client.vectorStores.retrieve(store.id)).toEqual(expect.objectContaining({ search_mode: 'hybrid' }));
    const [index] = await t.toolgate.database.dataSource.query(
      `SELECT indexdef FROM pg_indexes WHERE tablename = 'file_search_vectors_d${DIMENSIONS}' AND indexdef LIKE '%hnsw%'`,
    );
    expect(index.indexdef).toMatch(/USING hnsw \(embedding vector_cosine_ops\)/);
  });

  it('fuses vector and full-text ranks into 0-1 scores, with filters and score_threshold', async () => {
    const store = await client.vectorStores.create({ name: 'fusion' });
    const docs: [string, string, Record<string, string>][] = [
      ['cats.txt', 'Cats purr and sleep in the sun all afternoon.', { animal: 'cat' }],
      ['dogs.txt', 'Dogs bark at the mail carrier every morning.', { animal: 'dog' }],
      ['fish.txt', 'Fish swim in the aquarium near the window.', { animal: 'fish' }],
    ];
    for (const [name, text, attributes] of docs) {
      const file = await client.files.create({ file: await toFile(Buffer.from(text), name), purpose: 'assistants' });
      await client.vectorStores.files.createAndPoll(store.id, { file_id: file.id, attributes }, poll);
    }
    const page = await client.vectorStores.search(store.id, { query: 'cats purr sun' });
    expect(page.data[0].filename).toBe('cats.txt');
    // First in both the vector and the full-text list: the top normalized score.
    expect(page.data[0].score).toBe(1);
    for (const hit of page.data) expect(hit.score > 0 && hit.score <= 1).toBe(true);
    expect(page.data.map((hit) => hit.score)).toEqual([...page.data.map((hit) => hit.score)].sort((a, b) => b - a));

    // Only the vector list finds it (no shared word): still found, with a lower score.
    const semantic = await client.vectorStores.search(store.id, { query: 'aquarium' });
    expect(semantic.data[0].filename).toBe('fish.txt');

    const filtered = await client.vectorStores.search(store.id, {
      query: 'cats purr sun',
      filters: { type: 'ne', key: 'animal', value: 'cat' },
    });
    expect(filtered.data.map((hit) => hit.filename).sort()).toEqual(['dogs.txt', 'fish.txt']);

    const strict = await client.vectorStores.search(store.id, {
      query: 'cats purr sun',
      ranking_options: { score_threshold: 0.99 },
    });
    expect(strict.data.map((hit) => hit.filename)).toEqual(['cats.txt']);
  });

  it('retries the embedding service on 429 and 503, and fails a file with server_error when it keeps failing', async () => {
    const store = await client.vectorStores.create({ name: 'retries' });
    embedder.failNext(1, 429, { 'Retry-After': '0' });
    embedder.failNext(1, 503);
    const ok = await client.vectorStores.files.uploadAndPoll(
      store.id,
      await toFile(Buffer.from('resilient heron'), 'ok.txt'),
      poll,
    );
    expect(ok.status).toBe('completed');

    // Every attempt of every job try fails: after max_attempts the file fails for good.
    embedder.failNext(1000, 500);
    try {
      const file = await client.files.create({
        file: await toFile(Buffer.from('doomed'), 'doomed.txt'),
        purpose: 'assistants',
      });
      await client.vectorStores.files.create(store.id, { file_id: file.id });
      await t.toolgate.database.dataSource.query(
        `UPDATE file_search_vector_store_files SET attempts = 2 WHERE file_id = $1`,
        [file.id],
      );
      const failed = await client.vectorStores.files.poll(store.id, file.id, poll);
      expect(failed.status).toBe('failed');
      expect(failed.last_error).toEqual({
        code: 'server_error',
        message: expect.stringMatching(/embedding service .* HTTP 500/),
      });
    } finally {
      embedder.clearFailures();
    }
  });

  it('cancels a batch: unfinished files become cancelled and leave no chunks', async () => {
    const store = await client.vectorStores.create({ name: 'cancel' });
    embedder.delayMs = 400;
    try {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const text = Array.from({ length: 300 }, (_, j) => `w${i}x${j}`).join(' ');
        ids.push(
          (await client.files.create({ file: await toFile(Buffer.from(text), `c${i}.txt`), purpose: 'assistants' })).id,
        );
      }
      const batch = await client.vectorStores.fileBatches.create(store.id, {
        file_ids: ids,
        chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 0 } },
      });
      expect(batch.status).toBe('in_progress');
      const cancelled = await client.vectorStores.fileBatches.cancel(batch.id, { vector_store_id: store.id });
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.file_counts.cancelled).toBeGreaterThan(0);
      expect(cancelled.file_counts.in_progress).toBe(0);
      expect(cancelled.file_counts.total).toBe(6);
      // Workers notice at their next lease renewal and remove what they had written.
      await waitFor(
        async () => {
          const [row] = await t.toolgate.database.dataSource.query(
            `SELECT count(*)::int AS n FROM file_search_chunks c JOIN file_search_vector_store_files f
               ON f.vector_store_id = c.vector_store_id AND f.file_id = c.file_id
             WHERE f.batch_id = $1 AND f.status = 'cancelled'`,
            [batch.id],
          );
          return row.n === 0;
        },
        10_000,
        'cancelled files to lose their chunks',
      );
      const counts = (await client.vectorStores.retrieve(store.id)).file_counts;
      expect(counts.cancelled + counts.completed).toBe(6);
      expect(counts.in_progress).toBe(0);
    } finally {
      embedder.delayMs = 0;
    }
  });

  it('runs the file_search tool in hybrid mode', async () => {
    const store = await client.vectorStores.create({ name: 'tool' });
    await client.vectorStores.files.uploadAndPoll(
      store.id,
      await toFile(Buffer.from('The launch code is kept in the blue safe.'), 'secret.txt'),
      poll,
    );
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(t.adminKey))
      .send({
        name: 'file_search',
        arguments: { query: 'where is the launch code kept', vector_store_ids: [store.id] },
      })
      .expect(200);
    expect(res.body.status).toBe('completed');
    expect(res.body.output.search_mode).toBe('hybrid');
    expect(res.body.output.results[0]).toEqual({
      file_id: expect.stringMatching(/^file-/),
      filename: 'secret.txt',
      score: 1,
      text: 'The launch code is kept in the blue safe.',
      attributes: null,
    });
  });
});

/** A restart in the middle of an ingestion: the new process finishes the job and nothing is lost. */
describe('file_search ingestion across a restart', () => {
  let embedder: FakeEmbeddingServer;
  let database: TestDatabase;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    embedder = await startFakeEmbeddingServer(DIMENSIONS);
    database = await createTestDatabase('pglite');
  });
  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    await embedder?.close();
    await database?.drop();
  });

  it('resumes unfinished files after the service is stopped mid-ingestion', async () => {
    const config = fileSearchConfig(embedder, { embedding_batch_size: 2, workers: 1 });
    const first = await startApp('pglite', { database, config });
    apps.push(first);
    const client = sdk(first);
    const words = Array.from({ length: 2000 }, (_, i) => `word${i}`);
    const file = await client.files.create({
      file: await toFile(Buffer.from(words.join(' ')), 'big.txt'),
      purpose: 'assistants',
    });
    const store = await client.vectorStores.create({
      name: 'restart',
      file_ids: [file.id],
      chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 0 } },
    });
    embedder.delayMs = 150;
    const servedBefore = embedder.served;
    await waitFor(() => embedder.served >= servedBefore + 3, 20_000, 'ingestion to be under way');
    await first.close();
    apps.pop();
    const mid = await client.vectorStores.files
      .retrieve(file.id, { vector_store_id: store.id })
      .catch((e: unknown) => e);
    expect(mid).toBeInstanceOf(OpenAI.APIConnectionError);

    embedder.delayMs = 0;
    const second = await startApp('pglite', { database, config, adminKey: first.adminKey });
    apps.push(second);
    const again = sdk(second);
    const done = await again.vectorStores.files.poll(store.id, file.id, poll);
    expect(done.status).toBe('completed');

    const chunks = (await again.vectorStores.files.content(file.id, { vector_store_id: store.id })).data.map(
      (c) => c.text!,
    );
    // Without overlap the chunks put back together are the file exactly; and one vector per chunk.
    expect(chunks.join('')).toBe(words.join(' '));
    const [{ vectors }] = await second.toolgate.database.dataSource.query(
      `SELECT count(*)::int AS vectors FROM file_search_vectors_d${DIMENSIONS} v JOIN file_search_chunks c ON c.id = v.chunk_id WHERE c.file_id = $1`,
      [file.id],
    );
    expect(vectors).toBe(chunks.length);
    const store2 = await again.vectorStores.retrieve(store.id);
    expect(store2.file_counts).toEqual({ in_progress: 0, completed: 1, failed: 0, cancelled: 0, total: 1 });
    const hits = await again.vectorStores.search(store.id, { query: 'word1234' });
    expect(hits.data[0].content[0].text).toContain('word1234');
  });
});

import OpenAI, { toFile } from 'openai';
import { startApp, TestApp } from './support/app';
import { randomToken } from '../src/common/ids';
import { adminQuery, createTestDatabase } from './support/databases';
import { startFakeEmbeddingServer } from './support/fake-embedding-server';

/**
 * file_search on an external PostgreSQL server without an embedding service: the core schema migrates and
 * full-text search works without the vector extension; asking for embeddings where the extension cannot be
 * created stops start-up with the fix named. Hybrid search on PostgreSQL is in file-search-hybrid.e2e-spec.ts.
 */
describe('file_search on PostgreSQL in full-text mode', () => {
  let t: TestApp | undefined;
  let client: OpenAI;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  // The service starts inside the test: a start that fails in the same process (the other tests) resets
  // nestjs-cls's process-wide plugin hooks, which an app started earlier would then trip over.
  it('indexes and searches in full-text mode', async () => {
    t = await startApp('postgres', { config: { builtins: { file_search: { poll_interval: '100ms' } } } });
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: t.adminKey, maxRetries: 0 });
    const store = await client.vectorStores.create({ name: 'postgres' });
    const a = await client.vectorStores.files.uploadAndPoll(
      store.id,
      await toFile(Buffer.from('Invoices are payable within thirty days of receipt.'), 'terms.txt'),
      { pollIntervalMs: 50 },
    );
    expect(a.status).toBe('completed');
    const b = await client.files.create({
      file: await toFile(Buffer.from('Deliveries arrive on weekdays.'), 'delivery.txt'),
      purpose: 'assistants',
    });
    await client.vectorStores.files.createAndPoll(
      store.id,
      { file_id: b.id, attributes: { topic: 'shipping' } },
      { pollIntervalMs: 50 },
    );

    const page = await client.vectorStores.search(store.id, { query: 'when are invoices payable?' });
    expect(page.data.map((hit) => hit.filename)).toEqual(['terms.txt']);
    expect(page.data[0].score).toBeGreaterThan(0);
    const filtered = await client.vectorStores.search(store.id, {
      query: 'deliveries invoices',
      filters: { type: 'eq', key: 'topic', value: 'shipping' },
    });
    expect(filtered.data.map((hit) => hit.filename)).toEqual(['delivery.txt']);
    expect(await client.vectorStores.retrieve(store.id)).toEqual(
      expect.objectContaining({ search_mode: 'full_text', file_counts: expect.objectContaining({ completed: 2 }) }),
    );
  });

  it('refuses to start with an embedding service when its role may not create pgvector, saying how to fix it', async () => {
    // pgvector is installed on the server but is not a trusted extension: a database owner without superuser
    // rights cannot create it, which is how a managed PostgreSQL without the extension enabled behaves.
    const database = await createTestDatabase('postgres');
    const role = `toolgate_owner_${randomToken(8).toLowerCase()}`;
    const name = new URL(database.url!).pathname.slice(1);
    await adminQuery(`CREATE ROLE ${role} LOGIN`);
    await adminQuery(`ALTER DATABASE ${name} OWNER TO ${role}`);
    const url = new URL(database.url!);
    url.username = role;
    const embedder = await startFakeEmbeddingServer(8);
    try {
      const start = startApp('postgres', {
        database: { ...database, url: url.toString() },
        config: { builtins: { file_search: { embedding_url: embedder.url, dimensions: 8 } } },
      });
      await expect(start).rejects.toThrow(
        /needs the pgvector extension, and creating it failed \(permission denied.*Have a superuser run "CREATE EXTENSION vector" in this database.*or remove builtins\.file_search\.embedding_url/s,
      );
    } finally {
      await embedder.close();
      await database.drop();
      await adminQuery(`DROP ROLE IF EXISTS ${role}`);
    }
  });

  it('stops start-up on an invalid file_search section with one line naming the key', async () => {
    await expect(
      startApp('postgres', { config: { builtins: { file_search: { chunk_size: 100, chunk_overlap: 60 } } } }),
    ).rejects.toThrow(
      /^Invalid configuration: builtins\.file_search\.chunk_overlap = 60: must be at most half of chunk_size/,
    );
    await expect(
      startApp('postgres', { config: { builtins: { file_search: { embedding_url: 'http://127.0.0.1:1/v1' } } } }),
    ).rejects.toThrow(/builtins\.file_search\.dimensions = missing: embedding_url is set, so dimensions must say/);
    await expect(
      startApp('postgres', { config: { builtins: { file_search: { embedding_api_key: 'sk-plain' } } } }),
    ).rejects.toThrow(/unknown key builtins\.file_search\.embedding_api_key/);
  });
});

import OpenAI, { toFile } from 'openai';
import type { VectorStoreFile } from 'openai/resources/vector-stores/files';
import type { ConfigInput } from '../src/config/config.schema';
import { startApp, TestApp } from './support/app';
import { createTestDatabase, ENGINES, TestDatabase } from './support/databases';
import { settledFile } from './support/vector-stores';

const sdk = (t: TestApp) => new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: t.adminKey, maxRetries: 0 });

const settled = (t: TestApp, storeId: string, fileId: string) => settledFile(sdk(t), t.baseUrl, storeId, fileId);

/** The Toolgate extension on the vector store file object (the SDK's type does not know it). */
const progressOf = (file: VectorStoreFile) => (file as VectorStoreFile & { progress: unknown }).progress;

async function addFile(t: TestApp, storeId: string, name: string, content: Buffer): Promise<string> {
  const client = sdk(t);
  const file = await client.files.create({ file: await toFile(content, name), purpose: 'assistants' });
  await client.vectorStores.files.create(storeId, { file_id: file.id });
  return file.id;
}

/**
 * Text that cl100k's tokenizer turns into one huge piece (a run of one letter, a CSV field of one long word,
 * thousands of brackets): chunking and tokenizing run in the document thread and in linear time, so each
 * file settles while the service keeps answering.
 */
describe.each(ENGINES)('file_search with hostile text (%s)', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(engine, {
      config: {
        logging: { level: 'error' },
        // Generous: on a loaded machine the CSV's long field may take a while, and this test is about completing.
        builtins: { file_search: { poll_interval: '100ms', workers: 2, parse_timeout: '10m' } },
      },
    });
  }, 120_000);
  afterAll(() => t?.close());

  it('indexes 65,536 × "a" and a CSV with one long field, fails JSON nested 100,000 deep, all with progress', async () => {
    const client = sdk(t);
    const store = await client.vectorStores.create({ name: 'hostile text' });
    const letters = 'a'.repeat(65_536);
    const longField = 'x'.repeat(256 * 1024);
    const ids = {
      letters: await addFile(t, store.id, 'letters.txt', Buffer.from(letters)),
      csv: await addFile(t, store.id, 'long-field.csv', Buffer.from(`name,notes\nalice,${longField}\n`)),
      json: await addFile(t, store.id, 'deep.json', Buffer.from('['.repeat(100_000) + ']'.repeat(100_000))),
    };

    const lettersFile = await settled(t, store.id, ids.letters);
    expect(lettersFile.status).toBe('completed');
    const lettersChunks = (await client.vectorStores.files.content(ids.letters, { vector_store_id: store.id })).data;
    expect(lettersChunks.length).toBeGreaterThan(1);
    for (const chunk of lettersChunks) expect(chunk.text).toMatch(/^a+$/);
    expect(progressOf(lettersFile)).toEqual({
      stage: 'done',
      file_bytes: 65_536,
      characters_total: 65_536,
      characters_done: 65_536,
      chunks_done: lettersChunks.length,
    });
    expect(lettersFile.usage_bytes).toBeGreaterThan(letters.length);

    const csvFile = await settled(t, store.id, ids.csv);
    expect(csvFile.status).toBe('completed');
    const csvText = (await client.vectorStores.files.content(ids.csv, { vector_store_id: store.id })).data
      .map((chunk) => chunk.text!)
      .join('');
    expect(csvText.startsWith('name: alice, notes: xxx')).toBe(true);

    const jsonFile = await settled(t, store.id, ids.json);
    expect(jsonFile.status).toBe('failed');
    expect(jsonFile.last_error).toEqual({
      code: 'invalid_file',
      message: 'The JSON file nests deeper than 1000 levels',
    });
    expect(progressOf(jsonFile)).toEqual(expect.objectContaining({ stage: 'parsing', chunks_done: 0 }));

    const hits = await client.vectorStores.search(store.id, { query: 'alice notes' });
    expect(hits.data.map((hit) => hit.file_id)).toContain(ids.csv);
    expect((await fetch(`${t.baseUrl}/healthz`)).status).toBe(200);
  }, 240_000);
});

/**
 * A file that fails (here: its processing runs past parse_timeout) is terminal: a restart of the service on
 * the same database does not claim it again, while files added after the restart are indexed.
 */
describe.each(ENGINES)('file_search failures across a restart (%s)', (engine) => {
  let database: TestDatabase;
  const apps: TestApp[] = [];
  const config: ConfigInput = {
    logging: { level: 'error' },
    builtins: { file_search: { poll_interval: '100ms', parse_timeout: '100ms' } },
  };

  beforeAll(async () => {
    database = await createTestDatabase(engine);
  });
  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    await database?.drop();
  });

  it('keeps a timed-out file failed after a restart', async () => {
    const first = await startApp(engine, { database, config });
    apps.push(first);
    const store = await sdk(first).vectorStores.create({ name: 'terminal' });
    // Two megabytes of letters without a space: far more tokenizing than 100 ms allows.
    let text = '';
    for (let i = 0; i < 2 * 1024 * 1024; i++) text += String.fromCharCode(97 + ((i * 7919) % 26));
    const slowId = await addFile(first, store.id, 'slow.txt', Buffer.from(text));
    const failed = await settled(first, store.id, slowId);
    expect(failed.status).toBe('failed');
    expect(failed.last_error).toEqual({ code: 'file_too_large', message: expect.stringContaining('parse_timeout') });
    await first.close();
    apps.pop();

    const second = await startApp(engine, { database, config, adminKey: first.adminKey });
    apps.push(second);
    // A file added after the restart is indexed: the workers are running and have seen the queue.
    const freshId = await addFile(second, store.id, 'fresh.txt', Buffer.from('A short note about herons.'));
    expect((await settled(second, store.id, freshId)).status).toBe('completed');
    const after = await sdk(second).vectorStores.files.retrieve(slowId, { vector_store_id: store.id });
    expect(after.status).toBe('failed');
    expect(after.last_error).toEqual(failed.last_error);
    const [row] = (await second.toolgate.database.dataSource.query(
      `SELECT attempts, lease_owner FROM file_search_vector_store_files WHERE file_id = $1`,
      [slowId],
    )) as { attempts: number; lease_owner: string | null }[];
    expect(row).toEqual({ attempts: 1, lease_owner: null });
  }, 240_000);
});

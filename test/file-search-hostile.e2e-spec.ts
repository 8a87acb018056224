import OpenAI, { toFile } from 'openai';
import { startApp, TestApp } from './support/app';
import { ENGINES } from './support/databases';
import { makeDocx, makePdf } from '../bench/support/documents';
import { settledFile } from './support/vector-stores';

const MB = 1024 * 1024;

/**
 * Hostile documents in file_search ingestion: each is parsed in a document thread under small limits, fails
 * alone with a clear code, and neither the process nor the other files of the store notice.
 */
describe.each(ENGINES)('file_search with hostile documents (%s)', (engine) => {
  let t: TestApp;
  let client: OpenAI;

  beforeAll(async () => {
    t = await startApp(engine, {
      config: {
        logging: { level: 'error' },
        builtins: {
          file_search: {
            poll_interval: '100ms',
            workers: 2,
            max_file_size: '4MB',
            max_pages: 50,
            max_decompressed_size: '8MB',
            parse_memory_limit: '32MB',
            max_extracted_characters: 100_000,
          },
        },
      },
    });
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: t.adminKey, maxRetries: 0 });
  }, 120_000);
  afterAll(() => t?.close());

  const upload = async (name: string, content: Buffer) =>
    (await client.files.create({ file: await toFile(content, name), purpose: 'assistants' })).id;

  const settled = (storeId: string, fileId: string) => settledFile(client, t.baseUrl, storeId, fileId, 60_000);

  it('fails a zip bomb, an oversized PDF, a memory hog and a corrupt file alone, and indexes the rest', async () => {
    // 20 MB of XML deflated to a few KB; its central directory declares the 20 MB, over the 8 MB cap.
    const bomb = await makeDocx(['A'.repeat(20 * MB)], { compressed: true });
    // Under the decompression cap, but its hundreds of thousands of paragraphs need more than a 32 MB heap.
    const hog = await makeDocx(
      Array.from({ length: 100_000 }, (_, i) => `p${i}`),
      { compressed: true },
    );
    const pages = await makePdf(Array.from({ length: 60 }, (_, i) => [`page ${i}`]));
    const wordy = Buffer.from('word '.repeat(30_000));
    const corrupt = Buffer.from('PK\u0003\u0004 this is not really a zip archive');
    const good = Buffer.from('The refund policy allows returns within thirty days.');
    const goodDocx = await makeDocx(['Shipping takes five business days.'], { compressed: true });
    expect(bomb.length).toBeLessThan(MB);

    const store = await client.vectorStores.create({ name: 'hostile' });
    const ids = {
      bomb: await upload('bomb.docx', bomb),
      hog: await upload('hog.docx', hog),
      pages: await upload('pages.pdf', pages),
      wordy: await upload('wordy.txt', wordy),
      corrupt: await upload('corrupt.docx', corrupt),
      good: await upload('good.txt', good),
      goodDocx: await upload('good.docx', goodDocx),
    };
    for (const id of Object.values(ids)) {
      await client.vectorStores.files.create(store.id, { file_id: id });
    }
    const outcome = async (id: string) => {
      const file = await settled(store.id, id);
      return { status: file.status, code: file.last_error?.code, message: file.last_error?.message };
    };

    expect(await outcome(ids.bomb)).toEqual({
      status: 'failed',
      code: 'file_too_large',
      message: expect.stringContaining('max_decompressed_size'),
    });
    expect(await outcome(ids.hog)).toEqual({
      status: 'failed',
      code: 'file_too_large',
      message: expect.stringContaining('parse_memory_limit'),
    });
    expect(await outcome(ids.pages)).toEqual({
      status: 'failed',
      code: 'file_too_large',
      message: expect.stringMatching(/60 pages.*max_pages/),
    });
    expect(await outcome(ids.wordy)).toEqual({
      status: 'failed',
      code: 'file_too_large',
      message: expect.stringContaining('max_extracted_characters'),
    });
    expect(await outcome(ids.corrupt)).toEqual({
      status: 'failed',
      code: 'invalid_file',
      message: expect.stringContaining('DOCX'),
    });
    expect(await outcome(ids.good)).toEqual({ status: 'completed', code: undefined, message: undefined });
    expect(await outcome(ids.goodDocx)).toEqual({ status: 'completed', code: undefined, message: undefined });

    // Terminal failures: each hostile file was tried once and is not queued again.
    const rows = (await t.toolgate.database.dataSource.query(
      `SELECT file_id, attempts, lease_owner FROM file_search_vector_store_files WHERE vector_store_id = $1 AND status = 'failed'`,
      [store.id],
    )) as { file_id: string; attempts: number; lease_owner: string | null }[];
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(row).toEqual({ file_id: row.file_id, attempts: 1, lease_owner: null });

    const results = await client.vectorStores.search(store.id, { query: 'refund shipping' });
    expect(results.data.map((r) => r.file_id).sort()).toEqual([ids.good, ids.goodDocx].sort());
    expect((await fetch(`${t.baseUrl}/healthz`)).status).toBe(200);
  }, 180_000);
});

describe('file_search parse timeout', () => {
  let t: TestApp;
  let client: OpenAI;

  beforeAll(async () => {
    t = await startApp('pglite', {
      config: {
        logging: { level: 'error' },
        builtins: { file_search: { poll_interval: '100ms', parse_timeout: '100ms' } },
      },
    });
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: t.adminKey, maxRetries: 0 });
  }, 120_000);
  afterAll(() => t?.close());

  it('stops a parse that runs past parse_timeout and fails only that file', async () => {
    const pdf = await makePdf(Array.from({ length: 400 }, (_, i) => [`page ${i} of a long report`]));
    const file = await client.files.create({ file: await toFile(pdf, 'long.pdf'), purpose: 'assistants' });
    const store = await client.vectorStores.create({ name: 'slow' });
    const indexed = await client.vectorStores.files.createAndPoll(
      store.id,
      { file_id: file.id },
      { pollIntervalMs: 50 },
    );
    expect(indexed.status).toBe('failed');
    expect(indexed.last_error).toEqual({
      code: 'file_too_large',
      message: expect.stringContaining('parse_timeout'),
    });
    expect((await fetch(`${t.baseUrl}/healthz`)).status).toBe(200);
  }, 120_000);
});

import { request as httpRequest } from 'node:http';
import OpenAI, { toFile } from 'openai';
import { bearer, startApp, TestApp } from './support/app';
import { makeDocx, makePdf } from '../bench/support/documents';
import { metricValue } from './support/wait';

/**
 * file_search in its default mode (no embedding service: full-text search) on the embedded database,
 * driven by the official `openai` SDK exactly as an application would use it against OpenAI.
 */
describe('file_search (full-text mode, embedded database)', () => {
  let t: TestApp;
  let client: OpenAI;
  let other: OpenAI;
  let otherKey: string;
  const poll = { pollIntervalMs: 50 };

  const upload = async (name: string, content: string | Buffer, api = client) =>
    api.files.create({ file: await toFile(Buffer.from(content), name), purpose: 'assistants' });
  const storeWith = async (
    files: { name: string; content: string | Buffer; attributes?: Record<string, string | number | boolean> }[],
  ) => {
    const store = await client.vectorStores.create({ name: 'docs' });
    for (const file of files) {
      const uploaded = await upload(file.name, file.content);
      await client.vectorStores.files.createAndPoll(
        store.id,
        { file_id: uploaded.id, attributes: file.attributes },
        poll,
      );
    }
    return store;
  };
  const status = (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: unknown) => (error instanceof OpenAI.APIError ? error.status : error),
    );

  beforeAll(async () => {
    t = await startApp('pglite', {
      config: {
        logging: { level: 'error' },
        builtins: { file_search: { poll_interval: '100ms', max_file_size: '256kb' } },
      },
    });
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: t.adminKey, maxRetries: 0 });
    const key = await t.http
      .post('/v1/admin/api_keys')
      .set(bearer(t.adminKey))
      .send({ name: 'other tenant', tenant_id: 'other' })
      .expect(201);
    otherKey = key.body.secret;
    other = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: otherKey, maxRetries: 0 });
    // Starting the embedded database takes a while on a loaded machine.
  }, 120_000);
  afterAll(() => t?.close());

  describe('Files API', () => {
    it('uploads, lists, downloads and deletes files', async () => {
      const text = 'Quarterly report: revenue grew.\n'.repeat(50_000 / 32);
      const file = await upload('report.txt', text);
      expect(file).toEqual({
        id: expect.stringMatching(/^file-[A-Za-z0-9]{24}$/),
        object: 'file',
        bytes: Buffer.byteLength(text),
        created_at: expect.any(Number),
        expires_at: null,
        filename: 'report.txt',
        purpose: 'assistants',
        status: 'processed',
        status_details: null,
      });
      expect(await client.files.retrieve(file.id)).toEqual(file);
      const content = await client.files.content(file.id);
      expect(await content.text()).toBe(text);

      const listed: string[] = [];
      for await (const item of client.files.list({ purpose: 'assistants' })) listed.push(item.id);
      expect(listed).toContain(file.id);

      expect(await client.files.delete(file.id)).toEqual({ id: file.id, object: 'file', deleted: true });
      expect(await status(client.files.retrieve(file.id))).toBe(404);
    });

    it('stores a multi-part file byte for byte', async () => {
      const bytes = Buffer.alloc(200 * 1024);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 251;
      const file = await client.files.create({ file: await toFile(bytes, 'blob.bin'), purpose: 'user_data' });
      const back = Buffer.from(await (await client.files.content(file.id)).arrayBuffer());
      expect(back.equals(bytes)).toBe(true);
    });

    it('answers 413 for a file over max_file_size, with or without a declared length', async () => {
      const big = Buffer.alloc(300 * 1024, 'a');
      const refused = await client.files
        .create({ file: await toFile(big, 'big.txt'), purpose: 'assistants' })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(OpenAI.APIError);
      expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
      expect((refused as InstanceType<typeof OpenAI.APIError>).message).toMatch(/larger than the 256 KB/);

      // Chunked transfer: the limit is found while streaming.
      const boundary = 'x-boundary';
      const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        // A connection of its own: a pooled one may be closed by the server's keep-alive timeout as it is reused.
        const req = httpRequest(`${t.baseUrl}/v1/files`, {
          method: 'POST',
          agent: false,
          headers: { ...bearer(t.adminKey), 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n`);
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\n\r\n`);
        for (let i = 0; i < 6; i++) req.write(Buffer.alloc(64 * 1024, 'b'));
        req.end(`\r\n--${boundary}--\r\n`);
      });
      expect(response.status).toBe(413);
      expect(JSON.parse(response.body).error).toEqual(
        expect.objectContaining({ code: 'file_too_large', type: 'invalid_request_error', param: 'file' }),
      );
      const files = await t.toolgate.database.dataSource.query(
        `SELECT count(*)::int AS n FROM file_search_files WHERE filename = 'big.txt'`,
      );
      expect(files).toEqual([{ n: 0 }]);
    });

    it('answers 413 while an endless chunked upload is still streaming, and keeps nothing of it', async () => {
      const db = t.toolgate.database.dataSource;
      const partRows = async () =>
        ((await db.query('SELECT count(*)::int AS n FROM file_search_file_parts')) as { n: number }[])[0].n;
      const partsBefore = await partRows();
      // The client would send 64 times the limit; the answer must come long before it is done.
      const chunk = Buffer.alloc(64 * 1024, 'e');
      const clientCap = 64 * 256 * 1024;
      const boundary = 'endless-boundary';
      let sent = 0;
      const response = await new Promise<{ status: number; body: string; sentBeforeAnswer: number }>(
        (resolve, reject) => {
          let answered = false;
          // A connection of its own: a pooled one may be closed by the server's keep-alive timeout as it is reused.
          const req = httpRequest(`${t.baseUrl}/v1/files`, {
            method: 'POST',
            agent: false,
            headers: { ...bearer(t.adminKey), 'Content-Type': `multipart/form-data; boundary=${boundary}` },
          });
          req.on('response', (res) => {
            answered = true;
            const sentBeforeAnswer = sent;
            let body = '';
            res.on('data', (data: Buffer) => (body += data.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentBeforeAnswer }));
            res.on('error', reject);
          });
          // Once answered, the server may close the connection under the still-sending client.
          req.on('error', (error) => (answered ? undefined : reject(error)));
          req.write(`--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n`);
          req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="endless.txt"\r\n\r\n`);
          const pump = () => {
            while (!answered && !req.destroyed && sent < clientCap) {
              sent += chunk.length;
              if (!req.write(chunk)) return void req.once('drain', pump);
            }
            if (!answered && !req.destroyed) req.end(`\r\n--${boundary}--\r\n`);
          };
          pump();
        },
      );
      expect(response.status).toBe(413);
      expect(JSON.parse(response.body).error).toEqual(
        expect.objectContaining({ code: 'file_too_large', type: 'invalid_request_error', param: 'file' }),
      );
      expect(response.sentBeforeAnswer).toBeLessThan(clientCap);
      const files = await db.query(`SELECT count(*)::int AS n FROM file_search_files WHERE filename = 'endless.txt'`);
      expect(files).toEqual([{ n: 0 }]);
      expect(await partRows()).toBe(partsBefore);
      const listed: string[] = [];
      for await (const item of client.files.list()) listed.push(item.filename);
      expect(listed).not.toContain('endless.txt');
      // The service carries on.
      expect((await upload('after.txt', 'still here')).bytes).toBe(10);
    });

    it('refuses an upload without purpose or file', async () => {
      const noPurpose = await t.http
        .post('/v1/files')
        .set(bearer(t.adminKey))
        .attach('file', Buffer.from('x'), 'a.txt');
      expect(noPurpose.status).toBe(400);
      expect(noPurpose.body.error).toEqual(
        expect.objectContaining({ param: 'purpose', code: 'missing_required_parameter' }),
      );
      const noFile = await t.http.post('/v1/files').set(bearer(t.adminKey)).field('purpose', 'assistants');
      expect(noFile.status).toBe(400);
      expect(noFile.body.error.param).toBe('file');
    });
  });

  describe('vector stores', () => {
    it('creates a store with files, indexes them and reports exact counts and usage', async () => {
      const a = await upload('alpha.md', '# Alpha\n\nThe refund policy allows returns within thirty days.');
      const store = await client.vectorStores.create({
        name: 'handbook',
        file_ids: [a.id],
        metadata: { team: 'support' },
        expires_after: { anchor: 'last_active_at', days: 7 },
        chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 50 } },
      });
      expect(store).toEqual({
        id: expect.stringMatching(/^vs_[A-Za-z0-9]{24}$/),
        object: 'vector_store',
        created_at: expect.any(Number),
        name: 'handbook',
        description: null,
        usage_bytes: 0,
        file_counts: { in_progress: 1, completed: 0, failed: 0, cancelled: 0, total: 1 },
        status: 'in_progress',
        expires_after: { anchor: 'last_active_at', days: 7 },
        expires_at: store.last_active_at! + 7 * 86400,
        last_active_at: expect.any(Number),
        metadata: { team: 'support' },
        search_mode: 'full_text',
      });
      const indexed = await client.vectorStores.files.poll(store.id, a.id, poll);
      expect(indexed).toEqual({
        id: a.id,
        object: 'vector_store.file',
        usage_bytes: expect.any(Number),
        created_at: expect.any(Number),
        vector_store_id: store.id,
        status: 'completed',
        last_error: null,
        chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 50 } },
        attributes: null,
        // Toolgate's extension: how far ingestion got, here to the end (the SDK passes unknown fields through).
        progress: { stage: 'done', file_bytes: 61, characters_total: 61, characters_done: 61, chunks_done: 1 },
      });
      expect(indexed.usage_bytes).toBeGreaterThan(0);

      const b = await client.vectorStores.files.uploadAndPoll(
        store.id,
        await toFile(Buffer.from('Shipping takes five business days.'), 'beta.txt'),
        poll,
      );
      expect(b.status).toBe('completed');
      expect(b.chunking_strategy).toEqual({
        type: 'static',
        static: { max_chunk_size_tokens: 512, chunk_overlap_tokens: 50 },
      });

      const after = await client.vectorStores.retrieve(store.id);
      expect(after.status).toBe('completed');
      expect(after.file_counts).toEqual({ in_progress: 0, completed: 2, failed: 0, cancelled: 0, total: 2 });
      expect(after.usage_bytes).toBe(indexed.usage_bytes + b.usage_bytes);

      const content = await client.vectorStores.files.content(a.id, { vector_store_id: store.id });
      expect(content.data).toEqual([
        { type: 'text', text: '# Alpha\n\nThe refund policy allows returns within thirty days.' },
      ]);
    });

    it('modifies and deletes a store', async () => {
      const store = await client.vectorStores.create({ name: 'before', metadata: { a: '1' } });
      const updated = await client.vectorStores.update(store.id, {
        name: 'after',
        metadata: { b: '2' },
        expires_after: { anchor: 'last_active_at', days: 1 },
      });
      expect(updated).toEqual(
        expect.objectContaining({
          name: 'after',
          metadata: { b: '2' },
          expires_after: { anchor: 'last_active_at', days: 1 },
        }),
      );
      expect(updated.expires_at).toBe(updated.last_active_at! + 86400);
      const cleared = await client.vectorStores.update(store.id, { expires_after: null });
      expect(cleared).toEqual(expect.objectContaining({ expires_after: null, expires_at: null, name: 'after' }));
      expect(await client.vectorStores.delete(store.id)).toEqual({
        id: store.id,
        object: 'vector_store.deleted',
        deleted: true,
      });
      expect(await status(client.vectorStores.retrieve(store.id))).toBe(404);
    });

    it('pages through stores and store files with the SDK iterators, both directions', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await client.vectorStores.create({ name: `page-${i}` })).id);
      const first = await client.vectorStores.list({ limit: 2, order: 'asc' });
      expect(first.data).toHaveLength(2);
      expect(first.has_more).toBe(true);
      const all: string[] = [];
      for await (const store of client.vectorStores.list({ limit: 2, order: 'asc' })) all.push(store.id);
      expect(all.filter((id) => ids.includes(id))).toEqual(ids);
      const before = await client.vectorStores.list({ order: 'asc', before: ids[3], limit: 2 });
      expect(before.data.map((s) => s.id)).toEqual([ids[1], ids[2]]);

      const store = await client.vectorStores.create({ name: 'paged files' });
      const fileIds: string[] = [];
      for (let i = 0; i < 3; i++) {
        const f = await upload(`page-${i}.txt`, `page number ${i}`);
        await client.vectorStores.files.create(store.id, { file_id: f.id });
        fileIds.push(f.id);
      }
      const seen: string[] = [];
      for await (const f of client.vectorStores.files.list(store.id, { limit: 1, order: 'asc' })) seen.push(f.id);
      expect(seen).toEqual(fileIds);
    });

    it('enforces expiry: an expired store is shown as expired and cannot be searched or extended', async () => {
      const store = await client.vectorStores.create({
        name: 'old',
        expires_after: { anchor: 'last_active_at', days: 1 },
      });
      await t.toolgate.database.dataSource.query(
        `UPDATE file_search_vector_stores SET last_active_at = now() - interval '2 days' WHERE id = $1`,
        [store.id],
      );
      const expired = await client.vectorStores.retrieve(store.id);
      expect(expired.status).toBe('expired');
      expect(expired.expires_at!).toBeLessThan(Date.now() / 1000);
      const search = await client.vectorStores.search(store.id, { query: 'anything' }).catch((e: unknown) => e);
      expect(search).toBeInstanceOf(OpenAI.BadRequestError);
      expect((search as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('vector_store_expired');
      const file = await upload('late.txt', 'late');
      expect(await status(client.vectorStores.files.create(store.id, { file_id: file.id }))).toBe(400);
    });
  });

  describe('parsing and ingestion', () => {
    it('indexes txt, md, html, csv, json, pdf and docx, and fails unsupported and corrupt files with their codes', async () => {
      const store = await client.vectorStores.create({ name: 'formats' });
      const sources: [string, string | Buffer][] = [
        ['notes.txt', 'plain zebra text'],
        ['guide.md', '# Guide\n\n*giraffe* markdown'],
        [
          'page.html',
          '<html><head><style>.x{}</style></head><body><h1>Title</h1><p>hippo <b>paragraph</b></p></body></html>',
        ],
        ['table.csv', 'animal,legs\nkoala,4\nostrich,2\n'],
        ['data.json', JSON.stringify({ animal: 'penguin', legs: 2 })],
        ['doc.pdf', await makePdf([['The walrus page one'], ['The narwhal page two']])],
        ['doc.docx', await makeDocx(['The platypus paragraph', 'Another line'])],
        ['program.exe', Buffer.from([0x4d, 0x5a, 0x90, 0x00])],
        ['broken.pdf', Buffer.from('%PDF-1.7\nthis is not really a pdf')],
        ['broken.docx', Buffer.from('not a zip archive')],
      ];
      const files: OpenAI.FileObject[] = [];
      for (const [name, content] of sources) files.push(await upload(name, content));
      const batch = await client.vectorStores.fileBatches.createAndPoll(
        store.id,
        { file_ids: files.map((f) => f.id) },
        poll,
      );
      expect(batch).toEqual({
        id: expect.stringMatching(/^vsfb_[A-Za-z0-9]{24}$/),
        object: 'vector_store.files_batch',
        created_at: expect.any(Number),
        vector_store_id: store.id,
        status: 'completed',
        file_counts: { in_progress: 0, completed: 7, failed: 3, cancelled: 0, total: 10 },
      });

      const failed = [];
      for await (const f of client.vectorStores.fileBatches.listFiles(batch.id, {
        vector_store_id: store.id,
        filter: 'failed',
      })) {
        failed.push(f);
      }
      const errorByName = Object.fromEntries(
        failed.map((f) => [files.find((file) => file.id === f.id)!.filename, f.last_error?.code]),
      );
      expect(errorByName).toEqual({
        'program.exe': 'unsupported_file',
        'broken.pdf': 'invalid_file',
        'broken.docx': 'invalid_file',
      });

      const expected: Record<string, string> = {
        zebra: 'notes.txt',
        giraffe: 'guide.md',
        hippo: 'page.html',
        koala: 'table.csv',
        penguin: 'data.json',
        walrus: 'doc.pdf',
        narwhal: 'doc.pdf',
        platypus: 'doc.docx',
      };
      for (const [word, filename] of Object.entries(expected)) {
        const page = await client.vectorStores.search(store.id, { query: word });
        expect({ word, files: page.data.map((hit) => hit.filename) }).toEqual({ word, files: [filename] });
      }
      const html = await client.vectorStores.search(store.id, { query: 'hippo' });
      expect(html.data[0].content[0].text).not.toMatch(/<|\.x\{/);
      const csv = await client.vectorStores.search(store.id, { query: 'koala' });
      expect(csv.data[0].content[0].text).toContain('animal: koala, legs: 4');
    });

    it('chunks by tokens with the requested size and overlap', async () => {
      const words = Array.from({ length: 1000 }, (_, i) => `w${i}`).join(' ');
      const store = await client.vectorStores.create({ name: 'chunks' });
      const file = await upload('long.txt', words);
      await client.vectorStores.files.createAndPoll(
        store.id,
        {
          file_id: file.id,
          chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 20 } },
        },
        poll,
      );
      const chunks = (await client.vectorStores.files.content(file.id, { vector_store_id: store.id })).data.map(
        (c) => c.text!,
      );
      expect(chunks.length).toBeGreaterThan(10);
      // Consecutive chunks share their overlap, and together they cover every word in order.
      for (let i = 1; i < chunks.length; i++) {
        const tail = chunks[i - 1].split(' ').slice(-3).join(' ');
        expect(chunks[i]).toContain(tail.trim());
      }
      expect(chunks[0].startsWith('w0 w1')).toBe(true);
      expect(chunks[chunks.length - 1].endsWith('w999')).toBe(true);
    });

    it('validates chunking strategies and attributes like OpenAI', async () => {
      const store = await client.vectorStores.create({ name: 'validation' });
      const file = await upload('v.txt', 'validation');
      const bad = [
        [
          {
            file_id: file.id,
            chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 50, chunk_overlap_tokens: 0 } },
          },
          'chunking_strategy.static.max_chunk_size_tokens',
        ],
        [
          {
            file_id: file.id,
            chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 101 } },
          },
          'chunking_strategy.static.chunk_overlap_tokens',
        ],
        [
          { file_id: file.id, attributes: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, i])) },
          'attributes',
        ],
        [{ file_id: file.id, attributes: { nested: { no: true } } }, 'attributes.nested'],
        [{ file_id: file.id, attributes: { long: 'x'.repeat(513) } }, 'attributes.long'],
      ] as const;
      for (const [body, param] of bad) {
        const error = await client.vectorStores.files.create(store.id, body as never).catch((e: unknown) => e);
        expect({
          param,
          status: (error as InstanceType<typeof OpenAI.APIError>).status,
          got: (error as InstanceType<typeof OpenAI.APIError>).param,
        }).toEqual({
          param,
          status: 400,
          got: param,
        });
      }
    });
  });

  describe('search', () => {
    let store: OpenAI.VectorStores.VectorStore;
    beforeAll(async () => {
      store = await storeWith([
        {
          name: 'support-2024.txt',
          content: 'Refund requests are answered by the support desk.',
          attributes: { team: 'support', year: 2024, public: true },
        },
        {
          name: 'billing-2025.txt',
          content: 'Refund invoices are issued by billing every month.',
          attributes: { team: 'billing', year: 2025, public: false },
        },
        {
          name: 'sales-2023.txt',
          content: 'Refund discounts are approved by the sales lead.',
          attributes: { team: 'sales', year: 2023 },
        },
      ]);
    });

    const names = async (filters?: object, query = 'refund') =>
      (await client.vectorStores.search(store.id, { query, filters: filters as never })).data
        .map((d) => d.filename)
        .sort();

    it('answers a vector_store.search_results.page with scores from 0 to 1', async () => {
      const page = await t.http
        .post(`/v1/vector_stores/${store.id}/search`)
        .set(bearer(t.adminKey))
        .send({ query: 'who answers refund requests?', max_num_results: 2, rewrite_query: true })
        .expect(200);
      expect(page.body).toEqual({
        object: 'vector_store.search_results.page',
        search_query: ['who answers refund requests?'],
        data: expect.any(Array),
        has_more: false,
        next_page: null,
      });
      expect(page.body.data).toHaveLength(2);
      expect(page.body.data[0]).toEqual({
        file_id: expect.stringMatching(/^file-/),
        filename: 'support-2024.txt',
        score: expect.any(Number),
        attributes: { team: 'support', year: 2024, public: true },
        content: [{ type: 'text', text: 'Refund requests are answered by the support desk.' }],
      });
      const scores = page.body.data.map((d: { score: number }) => d.score);
      expect(scores[0]).toBeGreaterThan(scores[1]);
      for (const score of scores) expect(score > 0 && score <= 1).toBe(true);
    });

    it('filters on attributes with every comparison and compound', async () => {
      expect(await names({ type: 'eq', key: 'team', value: 'billing' })).toEqual(['billing-2025.txt']);
      expect(await names({ type: 'ne', key: 'team', value: 'billing' })).toEqual([
        'sales-2023.txt',
        'support-2024.txt',
      ]);
      expect(await names({ type: 'gt', key: 'year', value: 2023 })).toEqual(['billing-2025.txt', 'support-2024.txt']);
      expect(await names({ type: 'gte', key: 'year', value: 2024 })).toEqual(['billing-2025.txt', 'support-2024.txt']);
      expect(await names({ type: 'lt', key: 'year', value: 2024 })).toEqual(['sales-2023.txt']);
      expect(await names({ type: 'lte', key: 'year', value: 2024 })).toEqual(['sales-2023.txt', 'support-2024.txt']);
      expect(await names({ type: 'in', key: 'team', value: ['sales', 'support'] })).toEqual([
        'sales-2023.txt',
        'support-2024.txt',
      ]);
      expect(await names({ type: 'nin', key: 'team', value: ['sales', 'support'] })).toEqual(['billing-2025.txt']);
      expect(await names({ type: 'eq', key: 'public', value: true })).toEqual(['support-2024.txt']);
      expect(await names({ type: 'ne', key: 'public', value: true })).toEqual(['billing-2025.txt', 'sales-2023.txt']);
      expect(
        await names({
          type: 'or',
          filters: [
            { type: 'eq', key: 'team', value: 'sales' },
            {
              type: 'and',
              filters: [
                { type: 'gte', key: 'year', value: 2025 },
                { type: 'eq', key: 'public', value: false },
              ],
            },
          ],
        }),
      ).toEqual(['billing-2025.txt', 'sales-2023.txt']);
      // A number compared with a string attribute never matches (no failing cast).
      expect(await names({ type: 'gt', key: 'team', value: 1 })).toEqual([]);
    });

    it('refuses malformed filters and limits with the offending parameter named', async () => {
      const cases: [object, string][] = [
        [{ query: 'refund', filters: { type: 'like', key: 'team', value: 'x' } }, 'filters.type'],
        [
          { query: 'refund', filters: { type: 'and', filters: [{ type: 'in', key: 'team', value: 'x' }] } },
          'filters.filters[0].value',
        ],
        [{ query: 'refund', filters: { type: 'gt', key: 'public', value: true } }, 'filters.value'],
        [{ query: 'refund', max_num_results: 51 }, 'max_num_results'],
        [{ query: '' }, 'query'],
        [{ query: 'refund', ranking_options: { score_threshold: 2 } }, 'ranking_options.score_threshold'],
        [{ query: 'refund', ranking_options: { ranker: 'best' } }, 'ranking_options.ranker'],
      ];
      for (const [body, param] of cases) {
        const res = await t.http.post(`/v1/vector_stores/${store.id}/search`).set(bearer(t.adminKey)).send(body);
        expect({ param, status: res.status, got: res.body.error?.param }).toEqual({ param, status: 400, got: param });
      }
    });

    it('applies score_threshold and max_num_results', async () => {
      const all = await client.vectorStores.search(store.id, { query: 'refund support desk', max_num_results: 50 });
      expect(all.data.length).toBe(3);
      const threshold = (all.data[0].score + all.data[1].score) / 2;
      const strict = await client.vectorStores.search(store.id, {
        query: 'refund support desk',
        ranking_options: { ranker: 'auto', score_threshold: threshold },
      });
      expect(strict.data.map((d) => d.filename)).toEqual(['support-2024.txt']);
      const one = await t.http
        .post(`/v1/vector_stores/${store.id}/search`)
        .set(bearer(t.adminKey))
        .send({ query: ['refund', 'billing'], max_num_results: 1 })
        .expect(200);
      expect(one.body.data).toHaveLength(1);
      expect(one.body.search_query).toEqual(['refund', 'billing']);
    });

    it('follows attribute updates and removals', async () => {
      const files = await client.vectorStores.files.list(store.id);
      const sales = files.data.find((f) => (f.attributes as { team?: string } | null)?.team === 'sales')!;
      const updated = await client.vectorStores.files.update(sales.id, {
        vector_store_id: store.id,
        attributes: { team: 'support', year: 2023 },
      });
      expect(updated.attributes).toEqual({ team: 'support', year: 2023 });
      expect(await names({ type: 'eq', key: 'team', value: 'support' })).toEqual([
        'sales-2023.txt',
        'support-2024.txt',
      ]);
      await client.vectorStores.files.update(sales.id, {
        vector_store_id: store.id,
        attributes: { team: 'sales', year: 2023 },
      });
    });
  });

  describe('adding files', () => {
    it('accepts a multipart upload straight to a vector store, with attributes', async () => {
      const store = await client.vectorStores.create({ name: 'direct' });
      const res = await t.http
        .post(`/v1/vector_stores/${store.id}/files`)
        .set(bearer(t.adminKey))
        .field('attributes', JSON.stringify({ source: 'scanner', pages: 3 }))
        .field('chunking_strategy', JSON.stringify({ type: 'auto' }))
        .attach('file', Buffer.from('Direct upload of the octopus manual.'), 'manual.txt')
        .expect(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          object: 'vector_store.file',
          vector_store_id: store.id,
          status: 'in_progress',
          attributes: { source: 'scanner', pages: 3 },
          chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 } },
        }),
      );
      const done = await client.vectorStores.files.poll(store.id, res.body.id, poll);
      expect(done.status).toBe('completed');
      expect((await client.files.retrieve(res.body.id)).filename).toBe('manual.txt');
      const hits = await client.vectorStores.search(store.id, {
        query: 'octopus',
        filters: { type: 'eq', key: 'source', value: 'scanner' },
      });
      expect(hits.data.map((h) => h.file_id)).toEqual([res.body.id]);
    });

    it('batches files with per-file attributes, uploadAndPoll included', async () => {
      const store = await client.vectorStores.create({ name: 'batch' });
      const existing = await upload('existing.txt', 'an existing lobster file');
      const batch = await client.vectorStores.fileBatches.uploadAndPoll(
        store.id,
        { files: [await toFile(Buffer.from('uploaded crab file'), 'crab.txt')], fileIds: [existing.id] },
        poll,
      );
      expect(batch.status).toBe('completed');
      expect(batch.file_counts).toEqual({ in_progress: 0, completed: 2, failed: 0, cancelled: 0, total: 2 });

      const tagged = await upload('tagged.txt', 'a tagged shrimp file');
      const second = await client.vectorStores.fileBatches.createAndPoll(
        store.id,
        { files: [{ file_id: tagged.id, attributes: { kind: 'tagged' } }], attributes: { kind: 'default' } },
        poll,
      );
      const [row] = (await client.vectorStores.fileBatches.listFiles(second.id, { vector_store_id: store.id })).data;
      expect(row.attributes).toEqual({ kind: 'tagged' });
      expect(await status(client.vectorStores.fileBatches.create(store.id, {}))).toBe(400);
    });
  });

  describe('deleting', () => {
    it('removes a file from a store, and a deleted file from every store', async () => {
      const first = await storeWith([{ name: 'keep.txt', content: 'the heron file' }]);
      const shared = await upload('shared.txt', 'the pelican file');
      await client.vectorStores.files.createAndPoll(first.id, { file_id: shared.id }, poll);
      const second = await client.vectorStores.create({ name: 'second', file_ids: [shared.id] });
      await client.vectorStores.files.poll(second.id, shared.id, poll);

      const removed = await client.vectorStores.files.delete(shared.id, { vector_store_id: first.id });
      expect(removed).toEqual({ id: shared.id, object: 'vector_store.file.deleted', deleted: true });
      expect((await client.vectorStores.search(first.id, { query: 'pelican' })).data).toEqual([]);
      expect((await client.vectorStores.search(second.id, { query: 'pelican' })).data).toHaveLength(1);
      expect((await client.files.retrieve(shared.id)).id).toBe(shared.id);

      await client.files.delete(shared.id);
      expect((await client.vectorStores.search(second.id, { query: 'pelican' })).data).toEqual([]);
      expect((await client.vectorStores.retrieve(second.id)).file_counts.total).toBe(0);

      await client.vectorStores.delete(first.id);
      const chunks = await t.toolgate.database.dataSource.query(
        'SELECT count(*)::int AS n FROM file_search_chunks WHERE vector_store_id = $1',
        [first.id],
      );
      expect(chunks).toEqual([{ n: 0 }]);
    });
  });

  describe('the file_search tool', () => {
    it('searches through /v1/tool_calls and returns structured results', async () => {
      const store = await storeWith([
        {
          name: 'policy.txt',
          content: 'Vacation days: employees get twenty five vacation days.',
          attributes: { kind: 'hr' },
        },
        { name: 'other.txt', content: 'Vacation rentals are not reimbursed.', attributes: { kind: 'finance' } },
      ]);
      const res = await t.http
        .post('/v1/tool_calls')
        .set(bearer(t.adminKey))
        .send({
          name: 'file_search',
          arguments: {
            query: 'how many vacation days',
            vector_store_ids: [store.id],
            max_num_results: 5,
            filters: { type: 'eq', key: 'kind', value: 'hr' },
          },
        })
        .expect(200);
      expect(res.body.status).toBe('completed');
      expect(res.body.output).toEqual({
        results: [
          {
            file_id: expect.stringMatching(/^file-/),
            filename: 'policy.txt',
            score: expect.any(Number),
            text: 'Vacation days: employees get twenty five vacation days.',
            attributes: { kind: 'hr' },
          },
        ],
        vector_store_ids: [store.id],
        search_mode: 'full_text',
      });

      const none = await t.http
        .post('/v1/tool_calls')
        .set(bearer(t.adminKey))
        .send({ name: 'file_search', arguments: { query: 'x' } })
        .expect(200);
      expect(none.body.status).toBe('failed');
      expect(none.body.output.error.code).toBe('no_vector_stores');

      const foreign = await t.http
        .post('/v1/tool_calls')
        .set(bearer(otherKey))
        .send({ name: 'file_search', arguments: { query: 'vacation', vector_store_ids: [store.id] } })
        .expect(200);
      expect(foreign.body.status).toBe('failed');
      expect(foreign.body.output.error).toEqual({
        code: 'not_found',
        message: `No vector store found with id '${store.id}'`,
      });
    });

    it('lists the tool with its schema', async () => {
      const res = await t.http.get('/v1/tool_definitions?tools=file_search').set(bearer(t.adminKey)).expect(200);
      expect(res.body.data).toEqual([
        expect.objectContaining({
          type: 'function',
          name: 'file_search',
          parameters: expect.objectContaining({ required: ['query'] }),
        }),
      ]);
    });
  });

  describe('tenant isolation', () => {
    it('answers 404 on every route for another tenant’s stores, files and batches, and lists nothing of theirs', async () => {
      const file = await upload('private.txt', 'the secret albatross');
      const store = await client.vectorStores.create({ name: 'private', file_ids: [file.id] });
      await client.vectorStores.files.poll(store.id, file.id, poll);
      const batch = await client.vectorStores.fileBatches.create(store.id, { file_ids: [file.id] });
      await client.vectorStores.fileBatches.poll(store.id, batch.id, poll);
      const ownFile = await upload('mine.txt', 'mine', other);
      const ownStore = await other.vectorStores.create({ name: 'mine' });

      const attempts: [string, Promise<unknown>][] = [
        ['files.retrieve', other.files.retrieve(file.id)],
        ['files.content', other.files.content(file.id)],
        ['files.delete', other.files.delete(file.id)],
        ['vectorStores.retrieve', other.vectorStores.retrieve(store.id)],
        ['vectorStores.update', other.vectorStores.update(store.id, { name: 'stolen' })],
        ['vectorStores.delete', other.vectorStores.delete(store.id)],
        ['vectorStores.search', other.vectorStores.search(store.id, { query: 'albatross' })],
        ['files.create', other.vectorStores.files.create(store.id, { file_id: ownFile.id })],
        ['files.list', other.vectorStores.files.list(store.id)],
        ['files.retrieve', other.vectorStores.files.retrieve(file.id, { vector_store_id: store.id })],
        ['files.update', other.vectorStores.files.update(file.id, { vector_store_id: store.id, attributes: {} })],
        ['files.delete', other.vectorStores.files.delete(file.id, { vector_store_id: store.id })],
        ['files.content', other.vectorStores.files.content(file.id, { vector_store_id: store.id })],
        ['fileBatches.create', other.vectorStores.fileBatches.create(store.id, { file_ids: [ownFile.id] })],
        ['fileBatches.retrieve', other.vectorStores.fileBatches.retrieve(batch.id, { vector_store_id: store.id })],
        ['fileBatches.cancel', other.vectorStores.fileBatches.cancel(batch.id, { vector_store_id: store.id })],
        ['fileBatches.listFiles', other.vectorStores.fileBatches.listFiles(batch.id, { vector_store_id: store.id })],
        ['own store, foreign file', other.vectorStores.files.create(ownStore.id, { file_id: file.id })],
        ['own store, foreign file in a new store', other.vectorStores.create({ file_ids: [file.id] })],
        [
          'own store, foreign file in a batch',
          other.vectorStores.fileBatches.create(ownStore.id, { file_ids: [file.id] }),
        ],
      ];
      for (const [name, attempt] of attempts)
        expect({ name, status: await status(attempt) }).toEqual({ name, status: 404 });
      const multipart = await t.http
        .post(`/v1/vector_stores/${store.id}/files`)
        .set(bearer(otherKey))
        .attach('file', Buffer.from('x'), 'x.txt');
      expect(multipart.status).toBe(404);

      const theirFiles = (await other.files.list()).data.map((f) => f.id);
      const theirStores = (await other.vectorStores.list()).data.map((s) => s.id);
      expect(theirFiles).toEqual([ownFile.id]);
      expect(theirStores).toEqual([ownStore.id]);
      expect(await status(other.vectorStores.list({ after: store.id }))).toBe(400);

      // Nothing changed for the owner.
      expect((await client.vectorStores.retrieve(store.id)).name).toBe('private');
      expect((await client.vectorStores.search(store.id, { query: 'albatross' })).data).toHaveLength(1);
    });
  });

  it('exports the file_search metrics', async () => {
    const store = await storeWith([{ name: 'metric.txt', content: 'the metric mongoose' }]);
    await client.vectorStores.search(store.id, { query: 'mongoose' });
    const metrics = (await t.http.get('/metrics')).text;
    expect(metricValue(metrics, 'toolgate_filesearch_documents_total', { vector_store_id: store.id })).toBe(1);
    expect(metricValue(metrics, 'toolgate_filesearch_chunks_total', { vector_store_id: store.id })).toBe(1);
    expect(
      metricValue(metrics, 'toolgate_filesearch_vector_search_duration_seconds_count', { vector_store_id: store.id }),
    ).toBe(1);
    expect(metrics).toContain('# TYPE toolgate_filesearch_embedding_duration_seconds histogram');
    expect(
      metricValue(metrics, 'toolgate_builtin_api_requests_total', {
        provider: 'file_search',
        path: '/v1/vector_stores/:vector_store_id/search',
        status: '200',
      }),
    ).toBeGreaterThan(0);
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startApp, TestApp } from './support/app';
import { approvedTool, memberKey } from './support/catalog';
import { ENGINES } from './support/databases';
import { FakeEmbeddingServer, startFakeEmbeddingServer } from './support/fake-embedding-server';
import { TEST_PROVIDERS } from './support/test-providers';

const DIMENSIONS = 256;
/** Shares no word with the ledger tool's name, description or parameters; the fake model reads it as "ledger". */
const QUERY = 'bookkeeping';

/** Over the budget of 3, so /mcp serves search_tools: testkit's tools, file_search and the ledger tool. */
const config = (fileSearch: Record<string, unknown>) => ({
  builtins: { testkit: { enabled: true }, file_search: fileSearch },
  gateway: { max_listed_tools: 3 },
});

async function setUp(t: TestApp): Promise<Record<string, string>> {
  const keys = { acme: await memberKey(t, 'acme'), globex: await memberKey(t, 'globex') };
  await approvedTool(t, 'ledger-reconcile', {
    description: 'Reconciles the quarterly ledger against the bank statements.',
    schema: { type: 'object', properties: { quarter: { type: 'string', description: 'Which quarter, e.g. Q3' } } },
    tenant_access: { mode: 'allowlist', allowlist: ['acme'] },
  });
  return keys;
}

function searcher(t: TestApp, clients: Client[]) {
  return async (credential: string, query: string): Promise<string[]> => {
    const client = new Client({ name: 'tool-search-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${credential}` } },
      }),
    );
    clients.push(client);
    const result = await client.callTool({ name: 'search_tools', arguments: { query } });
    expect(result.isError).toBeFalsy();
    return (result.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name);
  };
}

/** search_tools with the file_search embedding service: BM25 fused with the tools' embeddings. */
describe.each(ENGINES)('search_tools with embeddings (pgvector) on %s', (engine) => {
  let embedder: FakeEmbeddingServer;
  let t: TestApp;
  let keys: Record<string, string>;
  const clients: Client[] = [];
  let search: ReturnType<typeof searcher>;

  beforeAll(async () => {
    embedder = await startFakeEmbeddingServer(DIMENSIONS, { bookkeeping: 'ledger' });
    t = await startApp(engine, {
      providers: TEST_PROVIDERS,
      config: config({
        embedding_url: embedder.url,
        dimensions: DIMENSIONS,
        embedding_batch_size: 4,
        embedding_timeout: '500ms',
      }),
    });
    keys = await setUp(t);
    search = searcher(t, clients);
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t?.close();
    await embedder?.close();
  });

  it('finds a tool that shares no word with the query when its embedding is the nearest', async () => {
    expect((await search(keys.acme, QUERY))[0]).toBe('ledger-reconcile');
    // A word both rankings agree on still comes first.
    expect((await search(keys.acme, 'quarterly ledger'))[0]).toBe('ledger-reconcile');
  });

  it('embeds each tool text once and reuses the vectors across requests', async () => {
    await search(keys.acme, 'echo the input');
    const ledgerTexts = embedder.texts.filter((text) => text.startsWith('ledger reconcile\n'));
    expect(ledgerTexts).toEqual([
      'ledger reconcile\nReconciles the quarterly ledger against the bank statements.\nquarter Which quarter, e.g. Q3',
    ]);
    // Every request after the first carried only its query.
    const served = embedder.served;
    await search(keys.acme, 'something else');
    expect(embedder.served).toBe(served + 1);
    expect(embedder.texts.at(-1)).toBe('something else');
  });

  it("ranks only the caller's own tools", async () => {
    expect(await search(keys.globex, QUERY)).not.toContain('ledger-reconcile');
  });

  it('falls back to the lexical ranking when the embedding service fails, and uses it again once it answers', async () => {
    embedder.failNext(2, 503);
    expect(await search(keys.acme, QUERY)).not.toContain('ledger-reconcile');
    expect((await search(keys.acme, 'reconcile the ledger'))[0]).toBe('ledger-reconcile');
    expect((await search(keys.acme, QUERY))[0]).toBe('ledger-reconcile');
  });

  it('falls back to the lexical ranking when the embedding service does not answer in time', async () => {
    embedder.delayMs = 3000;
    try {
      expect(await search(keys.acme, QUERY)).not.toContain('ledger-reconcile');
      expect((await search(keys.acme, 'reconcile the ledger'))[0]).toBe('ledger-reconcile');
    } finally {
      embedder.delayMs = 0;
    }
    expect((await search(keys.acme, QUERY))[0]).toBe('ledger-reconcile');
  });
});

describe.each(ENGINES)('search_tools without an embedding service on %s', (engine) => {
  let t: TestApp;
  let keys: Record<string, string>;
  const clients: Client[] = [];
  let search: ReturnType<typeof searcher>;

  beforeAll(async () => {
    t = await startApp(engine, { providers: TEST_PROVIDERS, config: config({}) });
    keys = await setUp(t);
    search = searcher(t, clients);
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t?.close();
  });

  it('is lexical: a query sharing no word with the tool does not find it', async () => {
    expect(await search(keys.acme, QUERY)).not.toContain('ledger-reconcile');
    expect((await search(keys.acme, 'reconcile the ledger'))[0]).toBe('ledger-reconcile');
  });
});

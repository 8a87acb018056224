import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBenchApp } from './support/harness';
import { CatalogTool, toolSearchCatalog } from './support/tool-search-catalog';

interface Query {
  query: string;
  /** Any of these answers the query. */
  expected: string[];
}

interface Quality {
  label: string;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
  meanMs: number;
  /** Queries with no expected tool in the top 5, with what came first instead. */
  misses: string[];
}

const QUERIES = join(__dirname, '..', '..', 'bench', 'fixtures', 'tool-search-queries.json');
const RANKED = 50;

/**
 * Recall of search_tools on 472 real MCP tools with 50 hand-written queries, through /mcp with the SDK
 * client, against a naive ranker measured in the same run: count the query's words (3+ letters) that occur
 * as substrings of the tool's name and description, ties by name.
 */
export async function run(): Promise<void> {
  const catalog = toolSearchCatalog();
  const queries = JSON.parse(readFileSync(QUERIES, 'utf8')) as Query[];
  const names = new Set(catalog.map((tool) => tool.name));
  const missing = queries.flatMap((q) => q.expected).filter((name) => !names.has(name));
  if (missing.length) throw new Error(`Queries expect tools the catalog lacks: ${missing.join(', ')}`);

  const app = await startBenchApp({ builtins: { file_search: { enabled: false } } });
  try {
    const registered = await register(app.baseUrl, app.adminKey, catalog);
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${app.adminKey}` } },
      }),
    );
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    if (listed.join() !== 'search_tools,call_tool') throw new Error(`Expected the meta-tools, got ${listed.join()}`);

    const searchTools = await quality('search_tools via /mcp (BM25, MiniSearch)', queries, async (query) => {
      const result = await client.callTool({ name: 'search_tools', arguments: { query, limit: RANKED } });
      if (result.isError) throw new Error(JSON.stringify(result.content));
      return (result.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    });
    const baseline = await quality('naive substring ranker (in process)', queries, async (query) =>
      substringRank(catalog, query),
    );
    await client.close();

    console.log(`\nTool search recall (${registered} tools registered, ${queries.length} queries)`);
    for (const row of [baseline, searchTools]) {
      console.log(
        `  ${row.label.padEnd(44)} recall@1 ${row.recallAt1.toFixed(2)}   recall@5 ${row.recallAt5.toFixed(2)}   MRR ${row.mrr.toFixed(3)}   mean ${row.meanMs.toFixed(2)} ms/query`,
      );
    }
    console.log(`  search_tools misses at 5:\n    ${searchTools.misses.join('\n    ')}`);
    const ratio = (a: number, b: number) => (b === 0 ? 'inf' : `${(a / b).toFixed(2)}x`);
    console.log(
      `  ratio (search_tools / baseline): recall@1 ${ratio(searchTools.recallAt1, baseline.recallAt1)}, recall@5 ${ratio(searchTools.recallAt5, baseline.recallAt5)}, MRR ${ratio(searchTools.mrr, baseline.mrr)}`,
    );
  } finally {
    await app.close();
  }
}

async function quality(label: string, queries: Query[], rank: (query: string) => Promise<string[]>): Promise<Quality> {
  let at1 = 0;
  let at5 = 0;
  let reciprocal = 0;
  const misses: string[] = [];
  const started = performance.now();
  for (const { query, expected } of queries) {
    const ranked = await rank(query);
    const position = ranked.findIndex((name) => expected.includes(name));
    if (position < 0 || position >= 5)
      misses.push(
        `"${query}": expected at ${position < 0 ? `>${RANKED}` : position + 1} (${expected.join(' | ')}), first ${ranked[0] ?? '-'}`,
      );
    if (position === 0) at1 += 1;
    if (position >= 0 && position < 5) at5 += 1;
    if (position >= 0) reciprocal += 1 / (position + 1);
  }
  const n = queries.length;
  return {
    label,
    recallAt1: at1 / n,
    recallAt5: at5 / n,
    mrr: reciprocal / n,
    meanMs: (performance.now() - started) / n,
    misses,
  };
}

function substringRank(catalog: CatalogTool[], query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length >= 3);
  return catalog
    .map((tool) => {
      const text = `${tool.name} ${tool.description}`.toLowerCase();
      return { name: tool.name, score: words.filter((word) => text.includes(word)).length };
    })
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1))
    .slice(0, RANKED)
    .map((hit) => hit.name);
}

/** Registers the catalog through the public API as approved function tools; returns how many were taken. */
async function register(baseUrl: string, adminKey: string, catalog: CatalogTool[]): Promise<number> {
  const headers = { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' };
  const post = (path: string, body: unknown) =>
    fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  let registered = 0;
  for (const tool of catalog) {
    const body = { name: tool.name, description: tool.description || tool.name, source: { type: 'function' } };
    let created = await post('/v1/tools', { ...body, schema: tool.schema, security_status: 'approved' });
    if (created.status === 409) {
      // The automated review wants a human: walk it through review as an operator would.
      created = await post('/v1/tools', { ...body, schema: tool.schema });
      const { id } = (await created.json()) as { id: string };
      for (const decision of ['reviewed', 'approved'])
        await post(`/v1/tools/${id}/review`, { decision, notes: 'bench' });
      registered += 1;
      continue;
    }
    if (!created.ok) throw new Error(`Could not register ${tool.name}: ${await created.text()}`);
    registered += 1;
  }
  return registered;
}

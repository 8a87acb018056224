import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { bodies, FakeSearchServer, hits } from '../../../../test/support/fake-search-server';
import { JsonSchemaValidator } from '../../../common/json-schema';
import type { AppConfig } from '../../../config/app-config';
import { ConfigError, validateConfig } from '../../../config/config.loader';
import type { ToolContext, ToolResult } from '../../tool-executor';
import { WebSearchOutput, WebSearchProvider } from './web-search.service';
import { SystemClock } from '../../../common/clock';

const servers: FakeSearchServer[] = [];
const providers: WebSearchProvider[] = [];
let dir: string;

beforeAll(() => {
  Logger.overrideLogger(false); // backend failures are logged as warnings; the tests assert them otherwise
  dir = mkdtempSync(join(tmpdir(), 'toolgate-websearch-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(...args: Parameters<typeof FakeSearchServer.start>): Promise<FakeSearchServer> {
  const server = await FakeSearchServer.start(...args);
  servers.push(server);
  return server;
}

function keyFile(name: string): string {
  const file = join(dir, name);
  writeFileSync(file, `${name}-secret\n`);
  return file;
}

function provider(section: Record<string, unknown>, namespace = 'toolgate'): WebSearchProvider {
  const config = validateConfig({ metrics: { namespace }, builtins: { web_search: { enabled: true, ...section } } });
  const created = new WebSearchProvider(config as AppConfig, new SystemClock());
  providers.push(created);
  return created;
}

interface Context extends ToolContext {
  events: Record<string, unknown>[];
}
function context(signal: AbortSignal = new AbortController().signal): Context {
  const events: Record<string, unknown>[] = [];
  return { tenantId: 'acme', signal, progress: (event) => events.push(event), events };
}

let callCount = 0;
function search(p: WebSearchProvider, args: unknown, ctx: ToolContext = context()): Promise<ToolResult> {
  return p.execute({ id: `call_${++callCount}`, name: 'web_search', arguments: args }, ctx);
}

const output = (result: ToolResult) => result.output as WebSearchOutput;

describe('the tool', () => {
  it('declares strict argument and result schemas that are valid JSON Schema', () => {
    const [definition] = provider({ search_engine_url: 'http://127.0.0.1:9' }).tools();
    const validator = new JsonSchemaValidator();
    expect(definition.name).toBe('web_search');
    expect(validator.checkSchema(definition.parameters)).toEqual([]);
    expect(validator.checkSchema(definition.returns)).toEqual([]);
    expect(validator.validate(definition.parameters, { query: 'x', max_results: 20 })).toEqual([]);
    expect(validator.validate(definition.parameters, { query: '' })).not.toEqual([]);
    expect(validator.validate(definition.parameters, { query: '   ' })).not.toEqual([]);
    expect(validator.validate(definition.parameters, { query: 'x'.repeat(401) })).not.toEqual([]);
    expect(validator.validate(definition.parameters, { query: 'x', max_results: 21 })).not.toEqual([]);
    expect(validator.validate(definition.parameters, { query: 'x', page: 2 })).toEqual([
      { path: '$.page', message: 'is not an allowed property' },
    ]);
  });

  it('answers with structured results that match its declared result schema', async () => {
    const searxng = await serve(() => ({ json: bodies.searxng(hits('pg', 12)) }));
    const p = provider({ search_engine_url: searxng.url });
    const result = await search(p, { query: 'postgres   advisory locks ' });
    expect(result).toMatchObject({ callId: `call_${callCount}`, isError: false });
    expect(result.output).toEqual({ results: hits('pg', 5), count: 5, backend: 'searxng' });
    expect(result.metadata).toEqual({ backend: 'searxng', cached: false, attempts: [] });
    expect(new JsonSchemaValidator().validate(p.tools()[0].returns!, result.output)).toEqual([]);
    // The query reaches the backend with its whitespace normalized.
    expect(searxng.requests[0].query.get('q')).toBe('postgres advisory locks');
  });

  it('returns max_results when asked (up to 20), the configured default otherwise', async () => {
    const searxng = await serve(() => ({ json: bodies.searxng(hits('n', 25)) }));
    const p = provider({ search_engine_url: searxng.url, max_results: 3 });
    expect(output(await search(p, { query: 'a' })).count).toBe(3);
    expect(output(await search(p, { query: 'b', max_results: 20 })).count).toBe(20);
  });

  it('refuses invalid arguments with an error result instead of searching', async () => {
    const searxng = await serve(() => ({ json: bodies.searxng(hits('x', 1)) }));
    const p = provider({ search_engine_url: searxng.url });
    for (const args of [{ query: ' ' }, { query: 'x', max_results: 0 }, { q: 'x' }, 'x']) {
      const result = await search(p, args);
      expect(result.isError).toBe(true);
      expect(result.output).toEqual({ error: { code: 'invalid_arguments', message: expect.any(String) } });
    }
    expect(searxng.requests).toHaveLength(0);
  });
});

describe('fallback to the next backend', () => {
  it.each([
    ['a 500', { status: 500, text: 'oops' }, 'error', 'HTTP 500'],
    [
      'a 429',
      { status: 429, json: {}, headers: { 'retry-after': '5' } },
      'rate_limited',
      'rate limited (HTTP 429, retry after 5 s)',
    ],
    ['a malformed body', { text: 'not json' }, 'malformed', 'the response is not JSON'],
    ['a timeout', 'hang' as const, 'timeout', 'no answer within 300 ms'],
  ])('after %s from the first backend', async (_, reply, status, message) => {
    const searxng = await serve(() => reply);
    const brave = await serve(() => ({ json: bodies.brave(hits('brave', 2)) }));
    const p = provider({
      search_engine_url: searxng.url,
      backends: ['searxng', 'brave'],
      timeout: '300ms',
      brave: { url: brave.url, api_key_file: keyFile('brave') },
    });
    const ctx = context();
    const result = await search(p, { query: 'fallback' }, ctx);
    expect(result.isError).toBe(false);
    expect(result.output).toEqual({ results: hits('brave', 2), count: 2, backend: 'brave' });
    const attempt = { backend: 'searxng', status, message };
    expect(result.metadata).toEqual({ backend: 'brave', cached: false, attempts: [attempt] });
    expect(ctx.events).toEqual([{ event: 'web_search.backend_failed', ...attempt }]);
    expect(searxng.requests).toHaveLength(1);
    expect(brave.requests[0].headers['x-subscription-token']).toBe('brave-secret');
  });

  it('when every backend fails: an error result naming each failure, never a throw', async () => {
    const searxng = await serve(() => ({ status: 502, text: 'bad gateway' }));
    const tavily = await serve(() => ({ status: 429, json: {} }));
    const serper = await serve(() => ({ json: { unexpected: true } }));
    const p = provider({
      search_engine_url: searxng.url,
      backends: ['searxng', 'tavily', 'serper'],
      tavily: { url: tavily.url, api_key_file: keyFile('tavily') },
      serper: { url: serper.url, api_key_file: keyFile('serper') },
    });
    const result = await search(p, { query: 'nothing works' });
    expect(result).toMatchObject({ isError: true });
    expect(result.output).toEqual({
      error: {
        code: 'search_failed',
        message:
          'Every web search backend failed: searxng: HTTP 502; tavily: rate limited (HTTP 429); ' +
          'serper: the response has no organic list',
      },
    });
    expect((result.metadata!.attempts as unknown[]).map((a) => (a as { status: string }).status)).toEqual([
      'error',
      'rate_limited',
      'malformed',
    ]);
  });
});

describe('domain filtering', () => {
  it('keeps allowed domains and their subdomains, drops denied ones, and asks for a full page to filter', async () => {
    const found = [
      { title: 'a', url: 'https://docs.example.com/a', snippet: '' },
      { title: 'b', url: 'https://ads.docs.example.com/b', snippet: '' },
      { title: 'c', url: 'https://badexample.com/c', snippet: '' },
      { title: 'd', url: 'https://example.com/d', snippet: '' },
      { title: 'e', url: 'https://other.org/e', snippet: '' },
      { title: 'f', url: 'https://EXAMPLE.com./f', snippet: '' },
    ];
    const brave = await serve(() => ({ json: bodies.brave(found) }));
    const p = provider({
      backends: ['brave'],
      allow_domains: ['example.com'],
      deny_domains: ['ads.docs.example.com'],
      brave: { url: brave.url, api_key_file: keyFile('brave') },
    });
    const result = output(await search(p, { query: 'q', max_results: 2 }));
    expect(result.results.map((r) => r.title)).toEqual(['a', 'd']);
    expect(brave.requests[0].query.get('count')).toBe('20');
    const all = output(await search(p, { query: 'q2' }));
    expect(all.results.map((r) => r.url)).toEqual([
      'https://docs.example.com/a',
      'https://example.com/d',
      'https://example.com./f',
    ]);
  });

  it('drops repeated URLs', async () => {
    const twice = [...hits('dup', 2), ...hits('dup', 2)];
    const searxng = await serve(() => ({ json: bodies.searxng(twice) }));
    const p = provider({ search_engine_url: searxng.url });
    expect(output(await search(p, { query: 'q' })).results).toEqual(hits('dup', 2));
  });
});

describe('cache', () => {
  it('answers an identical query from memory without asking the backend again', async () => {
    const searxng = await serve(() => ({ json: bodies.searxng(hits('c', 5)) }));
    const p = provider({ search_engine_url: searxng.url });
    const first = await search(p, { query: 'cache me' });
    const second = await search(p, { query: '  cache   me' });
    expect(searxng.requests).toHaveLength(1);
    expect(second.output).toEqual(first.output);
    expect(second.metadata).toEqual({ backend: 'searxng', cached: true });
    await search(p, { query: 'cache me', max_results: 2 }); // a different question
    await search(p, { query: 'cache me too' });
    expect(searxng.requests).toHaveLength(3);
  });

  it('does not cache failures, and cache_ttl 0 disables it', async () => {
    const searxng = await serve(() => ({ status: 500, text: '' }));
    const failing = provider({ search_engine_url: searxng.url });
    await search(failing, { query: 'q' });
    await search(failing, { query: 'q' });
    expect(searxng.requests).toHaveLength(2);
    const fine = await serve(() => ({ json: bodies.searxng(hits('n', 1)) }));
    const uncached = provider({ search_engine_url: fine.url, cache_ttl: 0 });
    await search(uncached, { query: 'q' });
    await search(uncached, { query: 'q' });
    expect(fine.requests).toHaveLength(2);
  });
});

describe('cancellation', () => {
  it('aborting the call stops the request in flight and the fallback chain', async () => {
    const searxng = await serve(() => 'hang');
    const brave = await serve(() => ({ json: bodies.brave(hits('b', 1)) }));
    const p = provider({
      search_engine_url: searxng.url,
      backends: ['searxng', 'brave'],
      timeout: '60s',
      brave: { url: brave.url, api_key_file: keyFile('brave') },
    });
    const controller = new AbortController();
    const pending = search(p, { query: 'slow' }, context(controller.signal));
    await waitFor(() => searxng.requests.length === 1);
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.output).toEqual({
      error: { code: 'aborted', message: 'web_search was cancelled before a search backend answered' },
    });
    expect(result.metadata).toEqual({
      attempts: [{ backend: 'searxng', status: 'aborted', message: 'the call was cancelled' }],
    });
    expect(brave.requests).toHaveLength(0);
    await waitFor(() => searxng.abandoned === 1); // the request was really aborted, not left to run
  });

  it('an already cancelled call sends no request', async () => {
    const searxng = await serve(() => ({ json: bodies.searxng(hits('x', 1)) }));
    const p = provider({ search_engine_url: searxng.url });
    const result = await search(p, { query: 'q' }, context(AbortSignal.abort()));
    expect(result.output).toMatchObject({ error: { code: 'aborted' } });
    expect(result.metadata).toEqual({ attempts: [] });
    expect(searxng.requests).toHaveLength(0);
  });
});

it('counts queries, results and backend latency under the configured namespace', async () => {
  const searxng = await serve(() => ({ status: 500, text: '' }));
  const serper = await serve(() => ({ json: bodies.serper(hits('m', 3)) }));
  const p = provider(
    {
      search_engine_url: searxng.url,
      backends: ['searxng', 'serper'],
      serper: { url: serper.url, api_key_file: keyFile('serper') },
    },
    'agents',
  );
  const registry = new Registry();
  for (const metric of p.collectors()) registry.registerMetric(metric);
  await search(p, { query: 'metrics' });
  await search(p, { query: 'metrics' }); // from the cache
  const text = await registry.metrics();
  expect(text).toContain('agents_websearch_queries_total{backend="searxng",status="error"} 1');
  expect(text).toContain('agents_websearch_queries_total{backend="serper",status="ok"} 1');
  expect(text).toContain('agents_websearch_queries_total{backend="serper",status="cached"} 1');
  expect(text).toContain('agents_websearch_results_returned_sum{backend="serper"} 6');
  expect(text).toContain('agents_websearch_results_returned_count{backend="serper"} 2');
  expect(text).toContain('agents_websearch_backend_latency_seconds_count{backend="searxng"} 1');
  expect(text).toContain('agents_websearch_backend_latency_seconds_count{backend="serper"} 1');
});

it('construction fails with a ConfigError naming the variable when a keyed backend has no key', () => {
  const saved = process.env.TAVILY_API_KEY;
  delete process.env.TAVILY_API_KEY;
  try {
    expect(() => provider({ backends: ['tavily'] })).toThrow(ConfigError);
    expect(() => provider({ backends: ['tavily'] })).toThrow(
      /set TAVILY_API_KEY \(get a key at https:\/\/app\.tavily\.com\)/,
    );
    process.env.TAVILY_API_KEY = 'tvly-env';
    expect(
      provider({ backends: ['tavily'] })
        .tools()
        .map((tool) => tool.name),
    ).toEqual(['web_search']);
  } finally {
    if (saved === undefined) delete process.env.TAVILY_API_KEY;
    else process.env.TAVILY_API_KEY = saved;
  }
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

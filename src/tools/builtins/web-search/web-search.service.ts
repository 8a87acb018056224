import { Injectable, Logger } from '@nestjs/common';
import type { Metric } from 'prom-client';
import { Clock } from '../../../common/clock';
import { TtlCache } from '../../../common/ttl-cache';
import { AppConfig } from '../../../config/app-config';
import { FunctionProvider } from '../../registry/function-provider';
import type { ToolCall, ToolContext, ToolDefinition, ToolResult } from '../../tool-executor';
import { createAdapter } from './adapters';
import { DomainFilter } from './domain-filter';
import { SearchAdapter, SearchBackendError, SearchResult } from './search-adapter';
import type { BackendName } from './search-backends';
import { MAX_RESULTS_CAP, resolveWebSearchSettings, WebSearchSettings } from './web-search.config';
import { WebSearchMetrics } from './web-search.metrics';
import {
  parseWebSearchArguments,
  WEB_SEARCH_TOOL,
  webSearchArgumentsSchema,
  WebSearchArgumentsSchema,
  webSearchToolDefinition,
} from './web-search.tool';

/** What the tool returns (its declared `returns` schema). */
export interface WebSearchOutput {
  results: SearchResult[];
  count: number;
  backend: BackendName;
}

interface Attempt {
  backend: BackendName;
  status: SearchBackendError['kind'];
  message: string;
}

/**
 * The built-in `web_search` tool: tries the configured backends in order until one answers (a failure,
 * timeout, 429 or malformed body moves on to the next), filters the results by domain, and remembers
 * answers briefly. Backend failures never throw: when every backend fails the result is an error naming
 * each failure. Construction validates `builtins.web_search` and its API keys, so a bad setup stops start-up.
 */
@Injectable()
@FunctionProvider('web_search')
export class WebSearchProvider implements FunctionProvider {
  readonly name = 'web_search';
  private readonly logger = new Logger('WebSearch');
  private readonly settings: WebSearchSettings;
  private readonly adapters: SearchAdapter[];
  private readonly filter: DomainFilter;
  private readonly cache: TtlCache<string, WebSearchOutput>;
  private readonly metrics: WebSearchMetrics;
  private readonly argumentsSchema: WebSearchArgumentsSchema;
  private readonly definition: ToolDefinition;

  constructor(config: AppConfig, clock: Clock) {
    this.settings = resolveWebSearchSettings(config);
    const { backends, timeoutMs } = this.settings;
    this.adapters = backends.map((backend) => createAdapter(backend.name, { ...backend, timeoutMs }));
    this.filter = new DomainFilter(this.settings.allowDomains, this.settings.denyDomains);
    this.cache = new TtlCache(this.settings.cacheTtlMs, this.settings.cacheMaxEntries, () => clock.now().getTime());
    this.metrics = new WebSearchMetrics(config.metrics.namespace);
    this.argumentsSchema = webSearchArgumentsSchema(this.settings.maxResults);
    this.definition = webSearchToolDefinition(this.argumentsSchema);
    this.logger.log(`web_search backends, in order: ${backends.map((backend) => backend.name).join(', ')}`);
  }

  tools(): ToolDefinition[] {
    return [this.definition];
  }

  canExecute(name: string): boolean {
    return name === WEB_SEARCH_TOOL;
  }

  collectors(): Metric[] {
    return this.metrics.all();
  }

  async close(): Promise<void> {
    this.cache.clear();
  }

  async execute(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const args = parseWebSearchArguments(this.argumentsSchema, call.arguments);
    if ('problem' in args)
      return failure(call.id, 'invalid_arguments', `Invalid web_search arguments: ${args.problem}`);
    const maxResults = args.max_results ?? this.settings.maxResults;
    const key = `${maxResults}\n${args.query}`;
    const cached = this.cache.get(key);
    if (cached) {
      this.metrics.queries.inc({ backend: cached.backend, status: 'cached' });
      this.metrics.resultsReturned.observe({ backend: cached.backend }, cached.count);
      return { callId: call.id, output: cached, isError: false, metadata: { backend: cached.backend, cached: true } };
    }
    const attempts: Attempt[] = [];
    for (const adapter of this.adapters) {
      if (ctx.signal.aborted) break;
      const outcome = await this.attempt(adapter, args.query, maxResults, ctx.signal);
      if ('results' in outcome) {
        const output: WebSearchOutput = {
          results: outcome.results,
          count: outcome.results.length,
          backend: adapter.name,
        };
        this.cache.set(key, output);
        this.metrics.resultsReturned.observe({ backend: adapter.name }, output.count);
        return {
          callId: call.id,
          output,
          isError: false,
          metadata: { backend: adapter.name, cached: false, attempts },
        };
      }
      attempts.push(outcome);
      if (outcome.status === 'aborted') break;
      ctx.progress({ event: 'web_search.backend_failed', ...outcome });
    }
    if (ctx.signal.aborted) {
      return failure(call.id, 'aborted', 'web_search was cancelled before a search backend answered', attempts);
    }
    const summary = attempts.map((a) => `${a.backend}: ${a.message}`).join('; ');
    return failure(call.id, 'search_failed', `Every web search backend failed: ${summary}`, attempts);
  }

  private async attempt(
    adapter: SearchAdapter,
    query: string,
    maxResults: number,
    signal: AbortSignal,
  ): Promise<{ results: SearchResult[] } | Attempt> {
    const backend = adapter.name;
    // With a domain filter, ask for a full page so that filtering still leaves enough results.
    const wanted = this.filter.active ? MAX_RESULTS_CAP : maxResults;
    const stopTimer = this.metrics.backendLatency.startTimer({ backend });
    try {
      const found = await adapter.search(query, { maxResults: wanted, safeSearch: this.settings.safeSearch, signal });
      stopTimer();
      this.metrics.queries.inc({ backend, status: 'ok' });
      return { results: distinctUrls(this.filter.apply(found)).slice(0, maxResults) };
    } catch (error) {
      stopTimer();
      const failed =
        error instanceof SearchBackendError ? error : new SearchBackendError(backend, 'error', String(error));
      this.metrics.queries.inc({ backend, status: failed.kind });
      if (failed.kind !== 'aborted') this.logger.warn(`Search backend ${backend} failed: ${failed.message}`);
      return { backend, status: failed.kind, message: failed.message };
    }
  }
}

function distinctUrls(results: SearchResult[]): SearchResult[] {
  const seen = new Set<string>();
  return results.filter((result) => !seen.has(result.url) && seen.add(result.url));
}

function failure(callId: string, code: string, message: string, attempts: Attempt[] = []): ToolResult {
  return { callId, output: { error: { code, message } }, isError: true, metadata: { attempts } };
}

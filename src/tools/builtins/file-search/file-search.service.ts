import { Injectable } from '@nestjs/common';
import type { Metric } from 'prom-client';
import { ApiError } from '../../../common/api-error';
import { FunctionProvider } from '../../registry/function-provider';
import type { ToolCall, ToolContext, ToolDefinition, ToolResult } from '../../tool-executor';
import { FileSearchSettings } from './file-search.config';
import { FileSearchMetrics } from './file-search.metrics';
import {
  FILE_SEARCH_TOOL,
  fileSearchArgumentsSchema,
  FileSearchArgumentsSchema,
  fileSearchToolDefinition,
  parseFileSearchArguments,
} from './file-search.tool';
import { VectorIndex } from './ingestion/vector-index';
import { parseFilter } from './search/filters';
import { SearchService } from './search/search.service';

/**
 * The built-in `file_search` tool: searches the caller's vector stores (named in the call, or
 * configured for the agent profile or the provider) and returns the best passages. Problems the caller
 * can fix (no stores, unknown or expired store, bad filter) are error results, never exceptions.
 */
@Injectable()
@FunctionProvider('file_search')
export class FileSearchProvider implements FunctionProvider {
  readonly name = 'file_search';
  private readonly argumentsSchema: FileSearchArgumentsSchema;
  private readonly definition: ToolDefinition;

  constructor(
    private readonly settings: FileSearchSettings,
    private readonly search: SearchService,
    private readonly index: VectorIndex,
    private readonly metrics: FileSearchMetrics,
  ) {
    this.argumentsSchema = fileSearchArgumentsSchema(settings.maxResults);
    this.definition = fileSearchToolDefinition(this.argumentsSchema);
  }

  tools(): ToolDefinition[] {
    return [this.definition];
  }

  canExecute(name: string): boolean {
    return name === FILE_SEARCH_TOOL;
  }

  collectors(): Metric[] {
    return this.metrics.all();
  }

  async execute(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const args = parseFileSearchArguments(this.argumentsSchema, call.arguments);
    if ('problem' in args)
      return failure(call.id, 'invalid_arguments', `Invalid file_search arguments: ${args.problem}`);
    const storeIds =
      args.vector_store_ids ??
      (ctx.agentProfile ? this.settings.agentProfiles[ctx.agentProfile] : undefined) ??
      this.settings.vectorStoreIds;
    if (storeIds.length === 0) {
      return failure(
        call.id,
        'no_vector_stores',
        'No vector store to search: pass vector_store_ids, or configure builtins.file_search.vector_store_ids ' +
          '(or agent_profiles.<profile>.vector_store_ids)',
      );
    }
    try {
      const hits = await this.search.search(ctx.tenantId, storeIds, {
        query: [args.query],
        maxResults: args.max_num_results ?? this.settings.maxResults,
        filter: args.filters === undefined ? undefined : parseFilter(args.filters, 'filters'),
        scoreThreshold: 0,
      });
      return {
        callId: call.id,
        output: { results: hits, vector_store_ids: storeIds, search_mode: this.index.mode },
        isError: false,
        metadata: { search_mode: this.index.mode, results: hits.length },
      };
    } catch (error) {
      if (error instanceof ApiError) return failure(call.id, error.code ?? 'invalid_request', error.message);
      throw error;
    }
  }
}

function failure(callId: string, code: string, message: string): ToolResult {
  return { callId, output: { error: { code, message } }, isError: true };
}

import { newId } from '../common/ids';
import type { ToolCallObject } from '../tools/invocation/tool-call';
import type { Item } from './response-object';
import type { LoopTool } from './response-tools';

/** The outcome of a server-side call as the loop records it: the dispatcher's tool_call, or why none ran. */
export interface CallOutcome {
  status: 'completed' | 'failed';
  output: unknown;
  error: string | null;
}

/** The typed item of a server-side call, in progress (before it runs). */
export function pendingItem(tool: LoopTool, args: string): Item {
  switch (tool.kind) {
    case 'file_search':
      return {
        id: newId('fs_'),
        type: 'file_search_call',
        status: 'in_progress',
        queries: [queryOf(args)],
        results: null,
      };
    case 'web_search':
      return {
        id: newId('ws_'),
        type: 'web_search_call',
        status: 'in_progress',
        action: { type: 'search', query: queryOf(args) },
      };
    default:
      return {
        id: newId('mcp_'),
        type: 'mcp_call',
        status: 'in_progress',
        server_label: tool.serverLabel ?? 'toolgate',
        name: tool.catalogName ?? tool.name,
        arguments: args,
        output: null,
        error: null,
      };
  }
}

/** A call of a function the request does not offer: recorded as a failed call so the model is told. */
export function unknownCallItem(name: string, args: string): Item {
  return {
    id: newId('mcp_'),
    type: 'mcp_call',
    status: 'failed',
    server_label: 'toolgate',
    name,
    arguments: args,
    output: null,
    error: `Unknown tool '${name}': it is not among the tools of this request`,
  };
}

/** The finished item, and the text the model is given as the call's result. */
export function finishedItem(item: Item, outcome: CallOutcome): { item: Item; toolOutput: string } {
  const failed = outcome.status === 'failed';
  const toolOutput = failed ? JSON.stringify({ error: outcome.error }) : modelText(item, outcome.output);
  switch (item.type) {
    case 'file_search_call':
      return {
        item: {
          ...item,
          status: failed ? 'failed' : 'completed',
          results: failed ? null : fileResults(outcome.output),
        },
        toolOutput,
      };
    case 'web_search_call':
      return {
        item: {
          ...item,
          status: failed ? 'failed' : 'completed',
          action: { ...(item.action as object), sources: webSources(outcome.output) },
        },
        toolOutput,
      };
    default:
      return {
        item: {
          ...item,
          status: failed ? 'failed' : 'completed',
          output: failed ? null : toolOutput,
          error: failed ? outcome.error : null,
        },
        toolOutput,
      };
  }
}

/** The dispatcher's answer as a CallOutcome (denied, cancelled and timed-out calls are failures). */
export function outcomeOf(toolCall: ToolCallObject): CallOutcome {
  if (toolCall.status === 'completed') return { status: 'completed', output: toolCall.output, error: null };
  return {
    status: 'failed',
    output: toolCall.output,
    error: toolCall.error?.message ?? `The call ended ${toolCall.status}`,
  };
}

/** What the model reads: MCP text content as text, anything else as JSON. */
function modelText(item: Item, output: unknown): string {
  if (typeof output === 'string') return output;
  if (item.type === 'mcp_call') {
    const content = (output as { content?: unknown } | null)?.content;
    if (Array.isArray(content) && content.length > 0 && content.every((part) => part?.type === 'text')) {
      return content.map((part: { text?: unknown }) => String(part.text ?? '')).join('\n');
    }
  }
  return JSON.stringify(output ?? null);
}

function fileResults(output: unknown): Record<string, unknown>[] {
  const results = (output as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return [];
  return results.map((result: Record<string, unknown>) => ({
    file_id: result.file_id,
    filename: result.filename,
    score: result.score,
    text: result.text,
    attributes: result.attributes ?? null,
  }));
}

function webSources(output: unknown): { type: 'url'; url: string }[] {
  const results = (output as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return [];
  return results
    .filter((result: { url?: unknown }) => typeof result?.url === 'string')
    .map((result: { url: string }) => ({ type: 'url', url: result.url }));
}

function queryOf(args: string): string {
  try {
    const parsed = JSON.parse(args) as { query?: unknown };
    return typeof parsed?.query === 'string' ? parsed.query : '';
  } catch {
    return '';
  }
}

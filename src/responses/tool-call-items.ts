import { newId } from '../common/ids';
import type { CallResult } from '../tools/invocation/call-result';
import { outputOf, ToolPayload } from '../tools/tool-executor';
import type { Item } from './response-object';
import type { LoopTool } from './response-tools';

/** The outcome of a server-side call as the loop records it: what the tool returned, or why it did not. */
export type CallOutcome = { status: 'completed'; payload: ToolPayload } | { status: 'failed'; error: string };

/** The typed item of a server-side call, in progress (before it runs). */
export function pendingItem(tool: LoopTool, args: string, containerId: string): Item {
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
    case 'code_interpreter':
      return {
        id: newId('ci_'),
        type: 'code_interpreter_call',
        status: 'in_progress',
        code: codeOf(args),
        container_id: containerId,
        outputs: null,
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
  return refusedCallItem(name, args, `Unknown tool '${name}': it is not among the tools of this request`);
}

/** A call the request does not allow (its tool_choice), recorded failed and not run; the model is told why. */
export function refusedCallItem(name: string, args: string, error: string): Item {
  return {
    id: newId('mcp_'),
    type: 'mcp_call',
    status: 'failed',
    server_label: 'toolgate',
    name,
    arguments: args,
    output: null,
    error,
  };
}

/** The finished item, and the text the model is given as the call's result. */
export function finishedItem(item: Item, outcome: CallOutcome): { item: Item; toolOutput: string } {
  const failed = outcome.status === 'failed';
  const output = failed ? null : outputOf(outcome.payload);
  const toolOutput = failed ? JSON.stringify({ error: outcome.error }) : modelText(outcome.payload);
  switch (item.type) {
    case 'file_search_call':
      return {
        item: {
          ...item,
          status: failed ? 'failed' : 'completed',
          results: failed ? null : fileResults(output),
        },
        toolOutput,
      };
    case 'web_search_call':
      return {
        item: {
          ...item,
          status: failed ? 'failed' : 'completed',
          action: { ...(item.action as object), sources: webSources(output) },
        },
        toolOutput,
      };
    case 'code_interpreter_call':
      return {
        item: {
          ...item,
          status: failed ? 'failed' : 'completed',
          outputs: failed ? null : ((output as { outputs?: unknown } | null)?.outputs ?? null),
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

/** The dispatcher's answer as a CallOutcome (refused, denied, cancelled and timed-out calls are failures). */
export function outcomeOf(result: CallResult): CallOutcome {
  switch (result.status) {
    case 'completed':
      return { status: 'completed', payload: result.payload };
    case 'unknown_tool':
    case 'invalid':
      return { status: 'failed', error: result.message };
    default:
      return { status: 'failed', error: result.toolCall.error?.message ?? `The call ended ${result.status}` };
  }
}

/** What the model reads: MCP text content as text, anything else as JSON. */
function modelText(payload: ToolPayload): string {
  if (payload.kind === 'json' && typeof payload.value === 'string') return payload.value;
  if (payload.kind === 'mcp') {
    const { content } = payload.result;
    if (content.length > 0 && content.every((part) => part.type === 'text')) {
      return content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    }
  }
  return JSON.stringify(outputOf(payload) ?? null);
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

function codeOf(args: string): string {
  try {
    const parsed = JSON.parse(args) as { code?: unknown };
    return typeof parsed?.code === 'string' ? parsed.code : '';
  } catch {
    return '';
  }
}

function queryOf(args: string): string {
  try {
    const parsed = JSON.parse(args) as { query?: unknown };
    return typeof parsed?.query === 'string' ? parsed.query : '';
  } catch {
    return '';
  }
}

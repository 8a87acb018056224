import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { ApiError } from '../common/api-error';
import type { Config } from '../config/config.schema';
import type { Identity } from '../tenancy/request-context';
import { unknownToolMessage } from '../tools/invocation/did-you-mean';
import type { ToolDispatcher } from '../tools/invocation/tool-dispatcher';
import type { ResolvedTool } from '../tools/invocation/tool-policy';
import { catalogName } from '../tools/mcp/mcp-tool-names';
import { FILE_SEARCH_TOOL } from '../tools/builtins/file-search/file-search.tool';
import { WEB_SEARCH_TOOL } from '../tools/builtins/web-search/web-search.tool';
import { CODE_INTERPRETER_TOOL } from '../tools/builtins/code-interpreter/code-interpreter.tool';
import type { RequestTool, ToolChoice } from './response-request';

/**
 * A tool as the loop offers it to the model. `client` tools end the response with a `function_call` item;
 * the others run here, through the dispatcher, under the catalog name `catalogName`.
 */
export interface LoopTool {
  /** The function name the model sees and calls. */
  name: string;
  kind: 'client' | 'file_search' | 'web_search' | 'code_interpreter' | 'mcp';
  description: string;
  parameters: Record<string, unknown>;
  /** The catalog tool the dispatcher runs (server-side kinds). */
  catalogName?: string;
  /** mcp_call items: the MCP source or built-in provider that serves the tool. */
  serverLabel?: string;
  /** Arguments the request fixed (file_search: its vector stores), merged over the model's. */
  fixedArguments?: Record<string, unknown>;
}

export class LoopTools {
  private readonly byName = new Map<string, LoopTool>();

  constructor(tools: LoopTool[]) {
    for (const tool of tools) this.byName.set(tool.name, tool);
  }

  get(name: string): LoopTool | undefined {
    return this.byName.get(name);
  }

  get size(): number {
    return this.byName.size;
  }

  /** Chat Completions `tools`; with `serverSideOnly: false` the server-side ones are left out. */
  chatTools(serverSide = true): ChatCompletionTool[] {
    return [...this.byName.values()]
      .filter((tool) => serverSide || tool.kind === 'client')
      .map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
  }

  /** Whether a `tool_choice` naming a tool, a kind of tool or an MCP server lets the model call `name`. */
  allows(choice: Exclude<ToolChoice, string>, name: string): boolean {
    const tool = this.byName.get(name);
    if (!tool) return false;
    if (choice.type === 'function') return tool.name === choice.name;
    if (choice.type === 'mcp') {
      return (
        tool.kind === 'mcp' &&
        tool.serverLabel === choice.server_label &&
        (choice.name === undefined || tool.catalogName === choice.name || tool.name === choice.name)
      );
    }
    return tool.kind === choice.type;
  }

  /** The function name `tool_choice` forces, if it names one. */
  forcedName(choice: ToolChoice): string | undefined {
    if (typeof choice === 'string') return undefined;
    if (choice.type === 'function') return choice.name;
    const tools = [...this.byName.values()];
    if (choice.type === 'mcp') {
      return tools.find(
        (tool) =>
          tool.kind === 'mcp' &&
          tool.serverLabel === choice.server_label &&
          (choice.name === undefined || tool.catalogName === choice.name || tool.name === choice.name),
      )?.name;
    }
    return tools.find((tool) => tool.kind === choice.type)?.name;
  }
}

/** The model sees file_search with a query only: which vector stores it searches is the request's choice. */
const FILE_SEARCH_PARAMETERS = {
  type: 'object',
  properties: { query: { type: 'string', description: 'What to look for in the files, in natural language.' } },
  required: ['query'],
  additionalProperties: false,
};

const CODE_INTERPRETER_DESCRIPTION =
  'Runs Python 3 code in an isolated sandbox without network and returns what it printed. Use it for ' +
  'calculations, data processing and checking code. The calls of this response share the sandbox: files ' +
  'written by one call are there for the next. Files the code writes to /mnt/data are returned to the user.';

/** The model sees code_interpreter with code only: which files it gets is the request's choice (container.file_ids). */
const CODE_INTERPRETER_PARAMETERS = {
  type: 'object',
  properties: { code: { type: 'string', description: 'The Python program to run.' } },
  required: ['code'],
  additionalProperties: false,
};

/**
 * Checks that the caller owns the files of a code_interpreter's `container.file_ids` (an ApiError naming the id
 * otherwise) and answers their names in /mnt/data.
 */
export type InputFileCheck = (fileIds: string[], param: string) => Promise<string[]>;

/**
 * The request's tools narrowed to the caller's effective set (tenant -> agent profile -> these tools): a
 * tool the caller cannot use is a 400 naming it, never silently dropped.
 */
export async function resolveLoopTools(
  dispatcher: ToolDispatcher,
  identity: Identity,
  requested: RequestTool[],
  config: Config,
  inputFiles: InputFileCheck,
): Promise<LoopTools> {
  const effective = requested.some((tool) => tool.type !== 'function') ? await dispatcher.effectiveTools(identity) : [];
  const byName = new Map(effective.map((tool) => [tool.name, tool]));
  const available = (name: string, param: string): ResolvedTool => {
    const tool = byName.get(name);
    if (!tool) {
      throw ApiError.invalid(unknownToolMessage(name, [...byName.keys()], config), param, 'unknown_tool');
    }
    return tool;
  };

  const tools: LoopTool[] = [];
  for (const tool of requested) {
    const param = `tools[${tool.index}]`;
    switch (tool.type) {
      case 'function':
        tools.push({ name: tool.name, kind: 'client', description: tool.description, parameters: tool.parameters });
        break;
      case 'registry': {
        const resolved = available(tool.name, `${param}.name`);
        tools.push(
          resolved.source.type === 'function'
            ? { ...definitionOf(resolved), kind: 'client' }
            : { ...definitionOf(resolved), kind: 'mcp', catalogName: resolved.name, serverLabel: resolved.origin },
        );
        break;
      }
      case 'file_search': {
        const resolved = available(FILE_SEARCH_TOOL, `${param}.type`);
        tools.push({
          name: resolved.name,
          kind: 'file_search',
          description: resolved.definition.description,
          parameters: FILE_SEARCH_PARAMETERS,
          catalogName: resolved.name,
          fixedArguments: {
            vector_store_ids: tool.vectorStoreIds,
            ...(tool.maxNumResults !== undefined && { max_num_results: tool.maxNumResults }),
            ...(tool.filters !== undefined && { filters: tool.filters }),
          },
        });
        break;
      }
      case 'web_search': {
        const resolved = available(WEB_SEARCH_TOOL, `${param}.type`);
        tools.push({ ...definitionOf(resolved), kind: 'web_search', catalogName: resolved.name });
        break;
      }
      case 'code_interpreter': {
        const resolved = available(CODE_INTERPRETER_TOOL, `${param}.type`);
        const names = await inputFiles(tool.fileIds, `${param}.container.file_ids`);
        tools.push({
          name: resolved.name,
          kind: 'code_interpreter',
          description:
            CODE_INTERPRETER_DESCRIPTION +
            (names.length > 0 ? ` Files in /mnt/data: ${names.map((name) => JSON.stringify(name)).join(', ')}.` : ''),
          parameters: CODE_INTERPRETER_PARAMETERS,
          catalogName: resolved.name,
          fixedArguments: { file_ids: tool.fileIds },
        });
        break;
      }
      case 'mcp':
        tools.push(...mcpTools(effective, tool.serverLabel, tool.allowedTools, param));
        break;
    }
  }
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) {
      throw ApiError.invalid(`Two tools of the request are named '${tool.name}'`, 'tools', 'duplicate_tool');
    }
    seen.add(tool.name);
  }
  return new LoopTools(tools);
}

function definitionOf(tool: ResolvedTool): Pick<LoopTool, 'name' | 'description' | 'parameters'> {
  return { name: tool.name, description: tool.definition.description, parameters: tool.definition.parameters };
}

/** The tools of one MCP source the caller may use, narrowed to `allowed` (server or catalog names). */
function mcpTools(effective: ResolvedTool[], label: string, allowed: string[] | null, param: string): LoopTool[] {
  const ofSource = effective.filter((tool) => tool.source.type === 'mcp' && tool.origin === label);
  if (ofSource.length === 0) {
    throw ApiError.invalid(
      `No MCP source '${label}' with tools this caller may use`,
      `${param}.server_label`,
      'unknown_mcp_server',
    );
  }
  if (!allowed) return ofSource.map((tool) => mcpTool(tool, label));
  const byName = new Map(ofSource.map((tool) => [tool.name, tool]));
  const chosen = new Map<string, LoopTool>();
  allowed.forEach((name, position) => {
    // Either the server's own name or the catalog name (`<source>-<tool>`).
    const tool = byName.get(name) ?? byName.get(catalogName(label, name));
    if (!tool) {
      const known = [...byName.keys()];
      throw ApiError.invalid(
        `The MCP source '${label}' has no tool '${name}' this caller may use; it has ` +
          `${known.slice(0, 20).join(', ')}${known.length > 20 ? ', ...' : ''}`,
        `${param}.allowed_tools[${position}]`,
        'unknown_tool',
      );
    }
    chosen.set(tool.name, mcpTool(tool, label));
  });
  return [...chosen.values()];
}

function mcpTool(tool: ResolvedTool, label: string): LoopTool {
  return { ...definitionOf(tool), kind: 'mcp', catalogName: tool.name, serverLabel: label };
}

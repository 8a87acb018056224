import { ApiError } from '../common/api-error';
import { newId } from '../common/ids';
import type { Item } from './response-object';
import { MAX_INPUT_FILES } from '../tools/builtins/code-interpreter/code-interpreter.tool';

/** The request tools Toolgate understands, checked; `index` points back at `tools[index]` for errors. */
export type RequestTool =
  | { type: 'function'; index: number; name: string; description: string; parameters: Record<string, unknown> }
  | { type: 'registry'; index: number; name: string }
  | {
      type: 'file_search';
      index: number;
      vectorStoreIds: string[];
      maxNumResults?: number;
      filters?: unknown;
    }
  | { type: 'web_search'; index: number }
  | { type: 'code_interpreter'; index: number; fileIds: string[] }
  | { type: 'mcp'; index: number; serverLabel: string; allowedTools: string[] | null };

export type ToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function'; name: string }
  | { type: 'file_search' }
  | { type: 'web_search' }
  | { type: 'mcp'; server_label: string; name?: string };

/** A validated POST /v1/responses body: what the loop runs on (stored as it is for background runs). */
export interface ResponseRequest {
  model: string;
  input: Item[];
  instructions: string | null;
  tools: RequestTool[];
  /** `tools` as the client sent them, echoed in the response object. */
  rawTools: Record<string, unknown>[];
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  maxToolCalls: number | null;
  maxOutputTokens: number | null;
  temperature: number | null;
  topP: number | null;
  previousResponseId: string | null;
  store: boolean;
  background: boolean;
  stream: boolean;
  include: string[];
  metadata: Record<string, string>;
  user: string | null;
}

const MAX_INPUT_ITEMS = 2048;
const MAX_TOOLS = 128;
const MAX_METADATA_KEYS = 16;
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const CALL_ID = /^[\w.:-]{1,128}$/;
const VECTOR_STORE_ID = /^vs_[A-Za-z0-9]{1,64}$/;
const FILE_ID = /^file-[A-Za-z0-9]{1,64}$/;
export const SUPPORTED_INCLUDES = ['file_search_call.results'];

/** Fields of OpenAI's request that change nothing here, accepted so SDK calls that set them still work. */
const IGNORED_FIELDS = new Set([
  'reasoning',
  'text',
  'truncation',
  'service_tier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
  'top_logprobs',
  'stream_options',
]);

const KNOWN_FIELDS = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'previous_response_id',
  'store',
  'background',
  'stream',
  'include',
  'metadata',
  'user',
  ...IGNORED_FIELDS,
]);

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const invalid = (message: string, param: string, code = 'invalid_value') => ApiError.invalid(message, param, code);

/** Checks a request body field by field; the first problem is a 400 naming the field as `param`. */
export function parseResponseRequest(body: unknown): ResponseRequest {
  if (!isObject(body)) throw ApiError.invalid('The request body must be a JSON object');
  for (const key of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(key)) {
      throw invalid(`Unsupported parameter '${key}'`, key, 'unsupported_parameter');
    }
  }
  const model = body.model;
  if (typeof model !== 'string' || model.trim() === '' || model.length > 256) {
    throw invalid('model is required: a model name of at most 256 characters', 'model');
  }
  const tools = Array.isArray(body.tools) ? body.tools : body.tools === undefined || body.tools === null ? [] : null;
  if (tools === null) throw invalid('tools must be an array', 'tools');
  if (tools.length > MAX_TOOLS) throw invalid(`tools may list at most ${MAX_TOOLS} tools`, 'tools');
  const parsedTools = tools.map((tool, index) => parseTool(tool, index));
  return {
    model,
    input: parseInput(body.input),
    instructions: optionalString(body.instructions, 'instructions'),
    tools: parsedTools,
    rawTools: tools as Json[],
    toolChoice: parseToolChoice(body.tool_choice),
    parallelToolCalls: optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls') ?? true,
    maxToolCalls: optionalInteger(body.max_tool_calls, 'max_tool_calls', 1, 1000),
    maxOutputTokens: optionalInteger(body.max_output_tokens, 'max_output_tokens', 16, 10_000_000),
    temperature: optionalNumber(body.temperature, 'temperature', 0, 2),
    topP: optionalNumber(body.top_p, 'top_p', 0, 1),
    previousResponseId: optionalId(body.previous_response_id, 'previous_response_id'),
    store: optionalBoolean(body.store, 'store') ?? true,
    background: optionalBoolean(body.background, 'background') ?? false,
    stream: optionalBoolean(body.stream, 'stream') ?? false,
    include: parseInclude(body.include),
    metadata: parseMetadata(body.metadata),
    user: optionalString(body.user, 'user', 256),
  };
}

function parseInput(input: unknown): Item[] {
  if (typeof input === 'string') return [userMessage(input)];
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) throw invalid('input must be a string or an array of items', 'input');
  if (input.length > MAX_INPUT_ITEMS) throw invalid(`input may hold at most ${MAX_INPUT_ITEMS} items`, 'input');
  return input.map((item, index) => parseInputItem(item, `input[${index}]`));
}

function userMessage(text: string): Item {
  return {
    id: newId('msg_'),
    type: 'message',
    role: 'user',
    status: 'completed',
    content: [{ type: 'input_text', text }],
  };
}

function parseInputItem(raw: unknown, param: string): Item {
  if (!isObject(raw)) throw invalid('Each input item must be an object', param);
  const type = raw.type ?? (raw.role !== undefined ? 'message' : undefined);
  switch (type) {
    case 'message':
      return parseMessage(raw, param);
    case 'function_call': {
      const callId = requiredCallId(raw.call_id, `${param}.call_id`);
      const name = raw.name;
      if (typeof name !== 'string' || !FUNCTION_NAME.test(name)) {
        throw invalid('name must be 1-64 letters, digits, "_" or "-"', `${param}.name`);
      }
      if (typeof raw.arguments !== 'string') throw invalid('arguments must be a string', `${param}.arguments`);
      return {
        id: idOf(raw.id, 'fc_', `${param}.id`),
        type: 'function_call',
        call_id: callId,
        name,
        arguments: raw.arguments,
        status: 'completed',
      };
    }
    case 'function_call_output': {
      const callId = requiredCallId(raw.call_id, `${param}.call_id`);
      return {
        id: idOf(raw.id, 'fco_', `${param}.id`),
        type: 'function_call_output',
        call_id: callId,
        output: outputText(raw.output, `${param}.output`),
        status: 'completed',
      };
    }
    default:
      throw invalid(
        `Unsupported input item type ${JSON.stringify(type)}: use message, function_call or function_call_output ` +
          '(earlier tool calls are carried by previous_response_id)',
        `${param}.type`,
        'unsupported_value',
      );
  }
}

function parseMessage(raw: Json, param: string): Item {
  const role = raw.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
    throw invalid('role must be user, assistant, system or developer', `${param}.role`);
  }
  const textType = role === 'assistant' ? 'output_text' : 'input_text';
  let content: Json[];
  if (typeof raw.content === 'string') {
    content = [textPart(textType, raw.content)];
  } else if (Array.isArray(raw.content)) {
    content = raw.content.map((part, index) => {
      const partParam = `${param}.content[${index}]`;
      if (!isObject(part) || (part.type !== 'input_text' && part.type !== 'output_text')) {
        throw invalid(
          'Only text content (input_text, output_text) is supported',
          `${partParam}.type`,
          'unsupported_value',
        );
      }
      if (typeof part.text !== 'string') throw invalid('text must be a string', `${partParam}.text`);
      return textPart(part.type, part.text);
    });
  } else {
    throw invalid('content must be a string or an array of content parts', `${param}.content`);
  }
  return { id: idOf(raw.id, 'msg_', `${param}.id`), type: 'message', role, status: 'completed', content };
}

function textPart(type: string, text: string): Json {
  return type === 'output_text' ? { type, text, annotations: [] } : { type, text };
}

/** function_call_output carries a string, or text parts that are joined. */
function outputText(output: unknown, param: string): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    return output
      .map((part, index) => {
        if (!isObject(part) || part.type !== 'input_text' || typeof part.text !== 'string') {
          throw invalid('Only input_text parts are supported in a function output', `${param}[${index}]`);
        }
        return part.text;
      })
      .join('');
  }
  throw invalid('output must be a string or an array of input_text parts', param);
}

function parseTool(raw: unknown, index: number): RequestTool {
  const param = `tools[${index}]`;
  if (!isObject(raw)) throw invalid('Each tool must be an object', param);
  switch (raw.type) {
    case 'function': {
      const name = raw.name;
      if (typeof name !== 'string' || !FUNCTION_NAME.test(name)) {
        throw invalid('name must be 1-64 letters, digits, "_" or "-"', `${param}.name`);
      }
      // Without parameters the name refers to a tool of the catalog, which Toolgate runs.
      if (raw.parameters === undefined || raw.parameters === null) return { type: 'registry', index, name };
      if (!isObject(raw.parameters)) throw invalid('parameters must be a JSON Schema object', `${param}.parameters`);
      return {
        type: 'function',
        index,
        name,
        description: optionalString(raw.description, `${param}.description`, 16_384) ?? '',
        parameters: raw.parameters,
      };
    }
    case 'file_search': {
      const ids = raw.vector_store_ids;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 10) {
        throw invalid('vector_store_ids must list 1 to 10 vector store ids', `${param}.vector_store_ids`);
      }
      ids.forEach((id, position) => {
        if (typeof id !== 'string' || !VECTOR_STORE_ID.test(id)) {
          throw invalid('expected a vector store id (vs_...)', `${param}.vector_store_ids[${position}]`);
        }
      });
      return {
        type: 'file_search',
        index,
        vectorStoreIds: ids as string[],
        maxNumResults: optionalInteger(raw.max_num_results, `${param}.max_num_results`, 1, 50) ?? undefined,
        ...(raw.filters !== undefined && raw.filters !== null && { filters: raw.filters }),
      };
    }
    case 'web_search':
    case 'web_search_preview':
      return { type: 'web_search', index };
    case 'code_interpreter': {
      // The response's calls share one sandbox, made for it and gone when it ends: no container can be named or kept.
      const container = raw.container;
      const known = ['type', 'file_ids'];
      if (
        !isObject(container) ||
        container.type !== 'auto' ||
        Object.keys(container).some((key) => !known.includes(key))
      )
        throw invalid(
          'container must be {"type": "auto"}, optionally with file_ids',
          `${param}.container`,
          'unsupported_value',
        );
      const ids = container.file_ids ?? [];
      if (!Array.isArray(ids) || ids.length > MAX_INPUT_FILES) {
        throw invalid(`file_ids must list at most ${MAX_INPUT_FILES} file ids`, `${param}.container.file_ids`);
      }
      ids.forEach((id, position) => {
        if (typeof id !== 'string' || !FILE_ID.test(id)) {
          throw invalid('expected a file id (file-...)', `${param}.container.file_ids[${position}]`);
        }
      });
      return { type: 'code_interpreter', index, fileIds: ids as string[] };
    }
    case 'mcp':
      return parseMcpTool(raw, index, param);
    default:
      throw invalid(
        `Unsupported tool type ${JSON.stringify(raw.type)}: use function, file_search, web_search, code_interpreter or mcp`,
        `${param}.type`,
        'unsupported_value',
      );
  }
}

function parseMcpTool(raw: Json, index: number, param: string): RequestTool {
  const label = raw.server_label;
  if (typeof label !== 'string' || label === '' || label.length > 128) {
    throw invalid('server_label must name a registered MCP source', `${param}.server_label`);
  }
  if (raw.server_url !== undefined || raw.connector_id !== undefined) {
    throw invalid(
      'server_url and connector_id are not supported: server_label names an MCP source registered in Toolgate',
      `${param}.${raw.server_url !== undefined ? 'server_url' : 'connector_id'}`,
      'unsupported_parameter',
    );
  }
  if (!approvalIsNever(raw.require_approval)) {
    throw invalid(
      "require_approval must be 'never': MCP tools are approved in Toolgate's catalog review, not per call",
      `${param}.require_approval`,
      'unsupported_value',
    );
  }
  return { type: 'mcp', index, serverLabel: label, allowedTools: allowedToolNames(raw.allowed_tools, param) };
}

/** Omitted, 'never', or `{never: {...}}` without `always`. */
function approvalIsNever(value: unknown): boolean {
  if (value === undefined || value === null || value === 'never') return true;
  if (!isObject(value)) return false;
  const always = value.always;
  return (
    always === undefined ||
    always === null ||
    (isObject(always) && (!Array.isArray(always.tool_names) || always.tool_names.length === 0))
  );
}

function allowedToolNames(value: unknown, param: string): string[] | null {
  if (value === undefined || value === null) return null;
  const names = isObject(value) ? value.tool_names : value;
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string') || names.length > 1000) {
    throw invalid('allowed_tools must be a list of tool names or {tool_names: [...]}', `${param}.allowed_tools`);
  }
  return names as string[];
}

function parseToolChoice(value: unknown): ToolChoice {
  if (value === undefined || value === null) return 'auto';
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  if (isObject(value)) {
    if (value.type === 'function' && typeof value.name === 'string') return { type: 'function', name: value.name };
    if (value.type === 'file_search') return { type: 'file_search' };
    if (value.type === 'web_search' || value.type === 'web_search_preview') return { type: 'web_search' };
    if (value.type === 'mcp' && typeof value.server_label === 'string') {
      return {
        type: 'mcp',
        server_label: value.server_label,
        ...(typeof value.name === 'string' && { name: value.name }),
      };
    }
  }
  throw invalid(
    "tool_choice must be 'auto', 'none', 'required', {type: 'function', name}, {type: 'file_search'}, " +
      "{type: 'web_search'} or {type: 'mcp', server_label, name?}",
    'tool_choice',
  );
}

function parseInclude(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('include must be an array', 'include');
  return value.map((entry, index) => {
    if (typeof entry !== 'string' || !SUPPORTED_INCLUDES.includes(entry)) {
      throw invalid(
        `Unsupported include ${JSON.stringify(entry)}; supported: ${SUPPORTED_INCLUDES.join(', ')}`,
        `include[${index}]`,
        'unsupported_value',
      );
    }
    return entry;
  });
}

function parseMetadata(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw invalid('metadata must be an object of strings', 'metadata');
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA_KEYS)
    throw invalid(`metadata may hold at most ${MAX_METADATA_KEYS} keys`, 'metadata');
  for (const [key, entry] of entries) {
    if (key.length > 64 || typeof entry !== 'string' || entry.length > 512) {
      throw invalid('metadata keys are at most 64 characters, values strings of at most 512', `metadata.${key}`);
    }
  }
  return value as Record<string, string>;
}

function requiredCallId(value: unknown, param: string): string {
  if (typeof value !== 'string' || !CALL_ID.test(value)) {
    throw invalid('call_id must be 1-128 letters, digits, "_", ".", ":" or "-"', param);
  }
  return value;
}

function idOf(value: unknown, prefix: 'msg_' | 'fc_' | 'fco_', param: string): string {
  if (value === undefined || value === null) return newId(prefix);
  if (typeof value !== 'string' || !CALL_ID.test(value)) throw invalid('id must be 1-128 letters or digits', param);
  return value;
}

function optionalId(value: unknown, param: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !CALL_ID.test(value)) throw invalid(`${param} must be a response id`, param);
  return value;
}

function optionalString(value: unknown, param: string, max = 262_144): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max) {
    throw invalid(`${param} must be a string of at most ${max} characters`, param);
  }
  return value;
}

function optionalBoolean(value: unknown, param: string): boolean | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') throw invalid(`${param} must be true or false`, param);
  return value;
}

function optionalNumber(value: unknown, param: string, min: number, max: number): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw invalid(`${param} must be a number from ${min} to ${max}`, param);
  }
  return value;
}

function optionalInteger(value: unknown, param: string, min: number, max: number): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${param} must be an integer from ${min} to ${max}`, param);
  }
  return value;
}

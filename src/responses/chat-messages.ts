import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ConversationItem } from './response-object';

type ContentPart = { type: string; text?: string };

/**
 * Responses items -> Chat Completions messages, in order: instructions become the system message; a
 * message keeps its role (developer is sent as system, which every OpenAI-compatible server knows);
 * consecutive calls (client function calls and server-side tool calls alike) become one assistant message
 * with `tool_calls`, followed by one `tool` message per call: a server-side call's stored output at once,
 * a client call's output when its `function_call_output` item comes.
 */
export function toChatMessages(instructions: string | null, items: ConversationItem[]): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (instructions) messages.push({ role: 'system', content: instructions });
  let assistant: ChatCompletionAssistantMessageParam | undefined;
  let pendingOutputs: ChatCompletionMessageParam[] = [];

  const flush = () => {
    messages.push(...pendingOutputs);
    pendingOutputs = [];
    assistant = undefined;
  };
  const addCall = (call: ChatCompletionMessageFunctionToolCall) => {
    if (!assistant) {
      assistant = { role: 'assistant', content: null, tool_calls: [] };
      messages.push(assistant);
    }
    assistant.tool_calls = [...(assistant.tool_calls ?? []), call];
  };

  for (const { item, toolName, toolOutput } of items) {
    switch (item.type) {
      case 'message': {
        flush();
        const text = textOf(item.content as ContentPart[] | string);
        if (item.role === 'assistant') {
          // A call that follows joins this message, as the model produced them in one turn.
          assistant = { role: 'assistant', content: text };
          messages.push(assistant);
        } else {
          messages.push({ role: item.role === 'user' ? 'user' : 'system', content: text });
        }
        break;
      }
      case 'function_call':
        addCall(functionCall(String(item.call_id), String(item.name), String(item.arguments)));
        break;
      case 'function_call_output':
        flush();
        messages.push({ role: 'tool', tool_call_id: String(item.call_id), content: String(item.output) });
        break;
      default:
        // A server-side tool call (file_search_call, web_search_call, mcp_call): what the model called and saw.
        if (toolName === undefined) break;
        addCall(functionCall(item.id, toolName, argumentsOf(item)));
        pendingOutputs.push({ role: 'tool', tool_call_id: item.id, content: toolOutput ?? '' });
    }
  }
  flush();
  return messages;
}

function functionCall(id: string, name: string, args: string): ChatCompletionMessageFunctionToolCall {
  return { id, type: 'function', function: { name, arguments: args } };
}

function textOf(content: ContentPart[] | string): string {
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('');
}

/** The arguments the model sent for a server-side call, as kept on its item. */
function argumentsOf(item: ConversationItem['item']): string {
  if (typeof item.arguments === 'string') return item.arguments;
  if (item.type === 'file_search_call') return JSON.stringify({ query: (item.queries as string[])[0] ?? '' });
  if (item.type === 'code_interpreter_call') return JSON.stringify({ code: item.code });
  const action = item.action as { query?: string } | undefined;
  return JSON.stringify({ query: action?.query ?? '' });
}

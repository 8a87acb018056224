import { toChatMessages } from './chat-messages';
import type { ConversationItem } from './response-object';

const user = (text: string): ConversationItem => ({
  item: { id: 'msg_u', type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
});

describe('toChatMessages', () => {
  it('puts instructions first and keeps message roles (developer as system)', () => {
    const items: ConversationItem[] = [
      { item: { id: 'msg_d', type: 'message', role: 'developer', content: 'Use metric units.' } },
      user('Hi'),
      {
        item: {
          id: 'msg_a',
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Hello' },
            { type: 'output_text', text: ' there' },
          ],
        },
      },
    ];
    expect(toChatMessages('Be brief.', items)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Use metric units.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello there' },
    ]);
  });

  it('joins the text and calls of one turn in one assistant message, outputs after it in call order', () => {
    const items: ConversationItem[] = [
      user('Weather and docs?'),
      {
        item: {
          id: 'msg_a',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Checking.' }],
        },
      },
      {
        item: { id: 'fs_1', type: 'file_search_call', status: 'completed', queries: ['rain'], results: null },
        toolName: 'file_search',
        toolOutput: '{"results":[]}',
      },
      {
        item: {
          id: 'fc_1',
          type: 'function_call',
          call_id: 'call_w',
          name: 'get_weather',
          arguments: '{"city":"Oslo"}',
        },
      },
      { item: { id: 'fco_1', type: 'function_call_output', call_id: 'call_w', output: 'sunny' } },
      {
        item: { id: 'mcp_1', type: 'mcp_call', name: 'crm-lookup', arguments: '{"name":"Ada"}', output: 'gold' },
        toolName: 'crm-lookup',
        toolOutput: 'gold',
      },
    ];
    expect(toChatMessages(null, items)).toEqual([
      { role: 'user', content: 'Weather and docs?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'fs_1', type: 'function', function: { name: 'file_search', arguments: '{"query":"rain"}' } },
          { id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'fs_1', content: '{"results":[]}' },
      { role: 'tool', tool_call_id: 'call_w', content: 'sunny' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'mcp_1', type: 'function', function: { name: 'crm-lookup', arguments: '{"name":"Ada"}' } }],
      },
      { role: 'tool', tool_call_id: 'mcp_1', content: 'gold' },
    ]);
  });
});

import { checkedRequest } from './request-envelope';
import { isModernRequest, ModernError } from './protocol';

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: meta } };
const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };

function refusal(body: unknown, sent: Record<string, string | undefined>): ModernError {
  try {
    checkedRequest(body, sent);
  } catch (error) {
    return error as ModernError;
  }
  throw new Error('expected a refusal');
}

describe('checkedRequest', () => {
  it('accepts a request whose headers mirror its body, plain or in the Base64 sentinel', () => {
    expect(checkedRequest(call, headers).method).toBe('tools/call');
    expect(checkedRequest(call, { ...headers, 'mcp-name': '=?base64?ZWNobw==?=' }).params.name).toBe('echo');
  });

  it.each([
    ['another name', { 'mcp-name': 'strict' }],
    ['no name', { 'mcp-name': undefined }],
    ['another method', { 'mcp-method': 'tools/list' }],
    ['no version header', { 'mcp-protocol-version': undefined }],
    ['a malformed Base64 name', { 'mcp-name': '=?base64?@@?=' }],
  ])('refuses %s with HeaderMismatch and 400', (_case, changed) => {
    const error = refusal(call, { ...headers, ...changed });
    expect([error.code, error.status]).toEqual([-32020, 400]);
    expect(error.message).toMatch(/^Header mismatch: /);
  });

  it('refuses an unknown version with UnsupportedProtocolVersion listing the served ones', () => {
    const old = {
      ...call,
      params: { ...call.params, _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } },
    };
    const error = refusal(old, { ...headers, 'mcp-protocol-version': '1900-01-01' });
    expect([error.code, error.status]).toEqual([-32022, 400]);
    expect(error.data).toEqual({
      supported: expect.arrayContaining(['2026-07-28', '2025-11-25']),
      requested: '1900-01-01',
    });
  });

  it('refuses what is not one JSON-RPC request with an id', () => {
    expect(refusal({ ...call, id: undefined }, headers).code).toBe(-32600);
    expect(refusal({ ...call, params: { name: 'echo' } }, headers).code).toBe(-32602);
  });
});

describe('isModernRequest', () => {
  it('tells the eras apart by _meta version or a method only 2026-07-28 has', () => {
    expect(isModernRequest(call)).toBe(true);
    expect(isModernRequest({ jsonrpc: '2.0', id: 1, method: 'server/discover' })).toBe(true);
    expect(
      isModernRequest({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } }),
    ).toBe(false);
    expect(
      isModernRequest({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { progressToken: 1 } } }),
    ).toBe(false);
    expect(isModernRequest([call])).toBe(false);
    expect(isModernRequest(null)).toBe(false);
  });
});

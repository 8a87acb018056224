import type { IncomingHttpHeaders } from 'node:http';
import { decodeHeaderValue } from '../../common/mcp-2026';
import { headerParameters, parameterValues } from '../../common/mcp-param-headers';
import { ErrorCodes, META, MODERN_VERSIONS, ModernError, ModernRequest, SERVED_VERSIONS } from './protocol';

/** Methods whose Mcp-Name header mirrors params.name. */
const NAMED_METHODS = new Set(['tools/call', 'prompts/get']);

/**
 * Checks a modern POST as the 2026-07-28 transport requires before anything runs: a JSON-RPC request,
 * its protocol version in `_meta`, that version served, and the MCP-Protocol-Version, Mcp-Method and
 * Mcp-Name headers equal to the body they mirror (an intermediary may have routed or limited on them).
 */
export function checkedRequest(body: unknown, headers: IncomingHttpHeaders): ModernRequest {
  const request = body as Partial<ModernRequest>;
  if (
    request.jsonrpc !== '2.0' ||
    typeof request.method !== 'string' ||
    !(typeof request.id === 'string' || typeof request.id === 'number')
  ) {
    throw new ModernError(ErrorCodes.InvalidRequest, 'Expected one JSON-RPC 2.0 request with an id', 400);
  }
  const params = request.params;
  const meta = params && typeof params === 'object' ? params._meta : undefined;
  const requested = meta && typeof meta === 'object' ? meta[META.protocolVersion] : undefined;
  if (typeof requested !== 'string') {
    throw new ModernError(ErrorCodes.InvalidParams, `params._meta must carry "${META.protocolVersion}"`, 400);
  }
  const headerVersion = single(headers, 'mcp-protocol-version');
  if (headerVersion !== requested) {
    throw mismatch('MCP-Protocol-Version', headerVersion, requested);
  }
  if (!MODERN_VERSIONS.includes(requested)) {
    throw new ModernError(
      ErrorCodes.UnsupportedProtocolVersion,
      `Unsupported protocol version '${requested.slice(0, 64)}': per-request _meta takes ${MODERN_VERSIONS.join(', ')}; earlier versions connect with initialize`,
      400,
      { supported: SERVED_VERSIONS, requested: requested.slice(0, 64) },
    );
  }
  const method = single(headers, 'mcp-method');
  if (method !== request.method) throw mismatch('Mcp-Method', method, request.method);
  if (NAMED_METHODS.has(request.method)) {
    const name = params!.name;
    const headerName = decodeHeaderValue(single(headers, 'mcp-name'));
    if (typeof name !== 'string' || headerName !== name) throw mismatch('Mcp-Name', headerName, name);
  }
  return request as ModernRequest;
}

/**
 * Checks a tools/call's `Mcp-Param-*` headers against its arguments, for a tool whose served input schema marks
 * parameters with `x-mcp-header` (Streamable HTTP page, "Server Behavior for Custom Headers"): each one present in
 * the arguments must come as its header, decoded equal to it, and none absent from them may. Headers of names the
 * schema does not mark are an intermediary's, passed over.
 */
export function checkParameterHeaders(
  inputSchema: unknown,
  args: Record<string, unknown>,
  headers: IncomingHttpHeaders,
): void {
  const found = headerParameters(inputSchema);
  if ('problem' in found || found.parameters.length === 0) return;
  const values = parameterValues(found.parameters, args);
  for (const { name } of found.parameters) {
    const header = `Mcp-Param-${name}`;
    const sent = headers[header.toLowerCase()];
    const decoded = sent === undefined ? undefined : Array.isArray(sent) ? null : decodeHeaderValue(sent);
    const expected = values.get(name);
    if (decoded === null || (sent !== undefined && decoded === undefined))
      throw new ModernError(ErrorCodes.HeaderMismatch, `Header mismatch: ${header} is not a valid header value`, 400);
    if (decoded !== expected) throw mismatch(header, decoded, expected);
  }
}

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? undefined : value;
}

function mismatch(header: string, sent: string | undefined, body: unknown): ModernError {
  const shown = (value: unknown) => (typeof value === 'string' ? `'${value.slice(0, 200)}'` : 'missing');
  return new ModernError(
    ErrorCodes.HeaderMismatch,
    `Header mismatch: ${header} header value ${shown(sent)} does not match body value ${shown(body)}`,
    400,
  );
}

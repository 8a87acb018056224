import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { version } from '../../../package.json';
import { META, MODERN_VERSION } from '../../common/mcp-2026';

/**
 * What the gateway serves of MCP revision 2026-07-28; the wire names shared with MCP sources are in
 * common/mcp-2026.ts.
 */
export { ErrorCodes, META, MODERN_VERSION } from '../../common/mcp-2026';

/** Modern versions served per request; legacy ones only through the initialize handshake. */
export const MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];

/** Everything /mcp speaks, newest first, as server/discover and UnsupportedProtocolVersion list it. */
export const SERVED_VERSIONS: readonly string[] = [
  MODERN_VERSION,
  ...SUPPORTED_PROTOCOL_VERSIONS.filter((served) => served !== MODERN_VERSION),
];

export const SERVER_INFO = { name: 'toolgate', version };

export type RequestId = string | number;

export interface ModernRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params: Record<string, unknown> & { _meta: Record<string, unknown> };
}

/** A request the modern layer answers with an error; `status` is the HTTP status the transport page asks for. */
export class ModernError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status = 200,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Methods only the modern era has: a request naming one is modern even before its _meta is checked. */
const MODERN_ONLY_METHODS = new Set(['server/discover', 'subscriptions/listen']);

/**
 * Whether a POST body opens the 2026-07-28 era: it carries the per-request protocol version in its
 * `_meta`, or names a method the legacy era lacks. Everything else (initialize and the requests of a
 * legacy client) goes to the SDK server unchanged.
 */
export function isModernRequest(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (typeof method === 'string' && MODERN_ONLY_METHODS.has(method)) return true;
  if (params === null || typeof params !== 'object') return false;
  const meta = (params as { _meta?: unknown })._meta;
  return meta !== null && typeof meta === 'object' && META.protocolVersion in meta;
}

/**
 * Wire names of MCP revision 2026-07-28 (schema.ts and the Streamable HTTP page of the specification),
 * which the SDK on the registry does not know yet. Shared by the /mcp gateway, which serves this revision
 * to clients, and by MCP sources, which speak it to upstream servers that offer it.
 */
export const MODERN_VERSION = '2026-07-28';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** JSON-RPC and MCP error codes (schema.ts: PARSE_ERROR ... UNSUPPORTED_PROTOCOL_VERSION). */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/**
 * The errors by which a server shows that it speaks a modern revision (Streamable HTTP, "Backward
 * Compatibility"): a 4xx carrying one of these is not a legacy server's refusal, and is not a reason to fall
 * back to `initialize`.
 */
export const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([
  ErrorCodes.HeaderMismatch,
  ErrorCodes.MissingRequiredClientCapability,
  ErrorCodes.UnsupportedProtocolVersion,
  ErrorCodes.MethodNotFound,
]);

/** Methods a server may ask of its client inside an InputRequiredResult (Multi Round-Trip Requests). */
export const INPUT_REQUEST_METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;
export type InputRequestMethod = (typeof INPUT_REQUEST_METHODS)[number];

/** The client capability each input request needs (schema.ts ClientCapabilities). */
export const CAPABILITY_OF: Record<InputRequestMethod, 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The Base64 sentinel of the transport page ("Value Encoding"): =?base64?...?= */
const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';
const BASE64_BODY = /^[A-Za-z0-9+/]*={0,2}$/;
/** Visible ASCII, inner spaces allowed, no leading or trailing whitespace (RFC 9110 field values). */
const PLAIN_HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** A value as a header carries it (Mcp-Name, Mcp-Param-*): plain ASCII as is, anything else in the sentinel. */
export function encodeHeaderValue(value: string): string {
  const plain = PLAIN_HEADER_VALUE.test(value) && !(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX));
  return plain ? value : `${BASE64_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${BASE64_SUFFIX}`;
}

/** A sentinel-encoded header value decoded; anything else as sent. A malformed encoding decodes to nothing. */
export function decodeHeaderValue(value: string | undefined): string | undefined {
  if (value === undefined || !value.startsWith(BASE64_PREFIX) || !value.endsWith(BASE64_SUFFIX)) return value;
  const encoded = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (!BASE64_BODY.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}

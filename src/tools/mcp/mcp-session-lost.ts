import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * Whether a failed `tools/call` certainly never reached the tool, so sending it again on a fresh
 * connection cannot run a non-idempotent tool twice. Anything else (a JSON-RPC error from the server,
 * a timeout, a connection closed while the request was pending) may come after the tool's side effect.
 */
export function sessionLostBeforeSend(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // The SDK's client had no transport left (closed stdio process, SSE stream ended before the request).
  if (error.message === 'Not connected') return true;
  // Streamable HTTP: the server restarted or expired our session and refused the request unprocessed.
  if (error instanceof StreamableHTTPError) return error.code === 404;
  // Legacy SSE: the POST endpoint no longer knows our session.
  if (/^Error POSTing to endpoint \(HTTP 404\)/.test(error.message)) return true;
  // Nothing listens any more: the request never left this process.
  return connectionRefused(error);
}

function connectionRefused(error: Error): boolean {
  const cause = error.cause as { code?: unknown } | undefined;
  return (error as { code?: unknown }).code === 'ECONNREFUSED' || cause?.code === 'ECONNREFUSED';
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { version } from '../../../package.json';
import { cappedFetch } from '../../common/capped-stream';
import { scopedSignalFetch } from '../../common/request-signal';
import { withTimeout } from '../../common/timeout';
import type { McpCommand, McpSourceEntity } from './mcp-source.entity';
import { StdioLineBuffer } from './stdio-line-buffer';

export interface ConnectOptions {
  /** Extra request headers: the source's auth and the calling tenant's credential. */
  headers: Record<string, string>;
  /** Every HTTP request of the transport goes through it (the SSRF-guarded fetch). */
  fetch: FetchLike;
  timeoutMs: number;
  /** Largest message (a tools/call result, a listing) read from the source, in bytes (mcp.max_result_bytes). */
  maxMessageBytes: number;
  onToolListChanged?: () => void;
}

/** The source sent a message over mcp.max_result_bytes: reading stopped there and the connection was closed. */
export class McpMessageTooLargeError extends Error {
  readonly code = 'result_too_large';

  constructor(
    readonly source: string,
    readonly limit: number,
  ) {
    super(
      `MCP source '${source}' sent a message larger than ${limit} bytes (mcp.max_result_bytes); ` +
        'it was not read and the connection was closed',
    );
  }
}

export interface McpConnection {
  client: Client;
  /** The transport actually in use (`auto` resolves to one of the others). */
  transport: 'streamable_http' | 'sse' | 'stdio';
  /**
   * Calls `listener` (at once if it already happened) when the source sends a message over the cap; the connection
   * is closed then, so a request waiting on it listens for this to learn why. Answers the function that stops
   * listening: a request must call it when it ends, or every request of the connection's life stays reachable.
   */
  onTooLarge(listener: (error: McpMessageTooLargeError) => void): () => void;
  close(): Promise<void>;
}

/**
 * Connects an SDK client to a source: Streamable HTTP, falling back to the legacy HTTP+SSE transport for
 * older servers (`auto`), or stdio for servers from the config file.
 */
export async function connectToSource(source: McpSourceEntity, options: ConnectOptions): Promise<McpConnection> {
  if (source.transport === 'stdio') {
    return connect(source, stdioTransport(source, options.maxMessageBytes), 'stdio', options);
  }
  const url = new URL(source.url!);
  const http = (guard: SizeGuard) => ({
    requestInit: { headers: options.headers },
    // Every answer is capped while it is read: JSON bodies in all, event streams per event. The transport's
    // own signal, given to every request, is held by each request only while it is open.
    fetch: cappedFetch(scopedSignalFetch(options.fetch), options.maxMessageBytes, () => guard.exceeded()),
  });
  const sse = () => connect(source, (guard) => new SSEClientTransport(url, http(guard)), 'sse', options);
  if (source.transport === 'sse') return sse();
  try {
    return await connect(
      source,
      (guard) => new StreamableHTTPClientTransport(url, http(guard)),
      'streamable_http',
      options,
    );
  } catch (error) {
    if (source.transport === 'streamable_http') throw error;
    return sse();
  }
}

/** Hears of a message over the cap, from the transport's stream, and fails the connection with a clear error. */
interface SizeGuard {
  exceeded(): void;
}

async function connect(
  source: McpSourceEntity,
  transportFor: (guard: SizeGuard) => Transport,
  kind: McpConnection['transport'],
  options: ConnectOptions,
): Promise<McpConnection> {
  const client = new Client(
    { name: 'toolgate', version },
    options.onToolListChanged
      ? { listChanged: { tools: { autoRefresh: false, onChanged: () => options.onToolListChanged!() } } }
      : {},
  );
  // Listeners, not a promise every request races: each race would leave a reaction on the promise for as long
  // as the connection lives, and with it the request's whole async context.
  const listeners = new Set<(error: McpMessageTooLargeError) => void>();
  let exceeded: McpMessageTooLargeError | undefined;
  const onTooLarge = (listener: (error: McpMessageTooLargeError) => void) => {
    if (exceeded) listener(exceeded);
    else listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  const guard: SizeGuard = {
    exceeded: () => {
      exceeded ??= new McpMessageTooLargeError(source.name, options.maxMessageBytes);
      for (const listener of listeners) listener(exceeded);
      listeners.clear();
      // A stdio server would go on writing for the seconds the SDK gives it to exit, and the SDK buffers each
      // chunk anew: it is stopped at once.
      if (transport instanceof StdioClientTransport && transport.pid !== null) killQuietly(transport.pid);
      // What was cut off may have been any request's answer, or half of one: the session cannot be trusted.
      void client.close().catch(() => undefined);
    },
  };
  // The stdio transport's read buffer reports a line over the cap as an error, then closes.
  client.onerror = (error) => {
    if (kind === 'stdio' && STDIO_BUFFER_EXCEEDED.test(error.message)) guard.exceeded();
  };
  const transport = transportFor(guard);
  try {
    // The SDK's timeout covers the initialize request only; a legacy SSE server that never sends its endpoint
    // event would hold the transport's start forever, so the whole connect is bounded.
    await withTimeout(
      client.connect(transport, { timeout: options.timeoutMs }),
      options.timeoutMs,
      `no answer within ${options.timeoutMs} ms`,
    );
  } catch (error) {
    // Cleanup after a failed connect: the connect error is what the caller needs.
    void client.close().catch(() => undefined);
    throw new Error(`cannot connect to MCP source '${source.name}' over ${kind}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { client, transport: kind, onTooLarge, close: () => client.close() };
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone: nothing left to stop.
  }
}

/** How the stdio read buffer (the SDK's ReadBuffer, and StdioLineBuffer in its place) reports a line over its cap. */
const STDIO_BUFFER_EXCEEDED = /^ReadBuffer exceeded maximum size/;

function stdioTransport(source: McpSourceEntity, maxMessageBytes: number): (guard: SizeGuard) => Transport {
  const command = source.command!;
  return () => {
    const transport = new StdioClientTransport({
      command: command.command,
      args: command.args,
      cwd: command.cwd,
      env: stdioEnvironment(command),
      stderr: 'ignore',
    });
    // The SDK takes no read buffer of ours; its own is quadratic in a long line (see StdioLineBuffer).
    (transport as unknown as { _readBuffer: StdioLineBuffer })._readBuffer = new StdioLineBuffer(maxMessageBytes);
    return transport;
  };
}

/**
 * A stdio server gets an allow-list, never Toolgate's whole environment (which holds the encryption key,
 * DATABASE_URL and search keys): the SDK's minimal default (PATH, HOME, ...), the variables the config names
 * in `inherit_env`, then the config's own `env` values.
 */
export function stdioEnvironment(command: McpCommand): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const name of command.inherit_env ?? []) {
    const value = process.env[name];
    if (value !== undefined) inherited[name] = value;
  }
  return { ...getDefaultEnvironment(), ...inherited, ...command.env };
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { version } from '../../../package.json';
import { withTimeout } from '../../common/timeout';
import type { McpCommand, McpSourceEntity } from './mcp-source.entity';

export interface ConnectOptions {
  /** Extra request headers: the source's auth and the calling tenant's credential. */
  headers: Record<string, string>;
  /** Every HTTP request of the transport goes through it (the SSRF-guarded fetch). */
  fetch: FetchLike;
  timeoutMs: number;
  onToolListChanged?: () => void;
}

export interface McpConnection {
  client: Client;
  /** The transport actually in use (`auto` resolves to one of the others). */
  transport: 'streamable_http' | 'sse' | 'stdio';
  close(): Promise<void>;
}

/**
 * Connects an SDK client to a source: Streamable HTTP, falling back to the legacy HTTP+SSE transport for
 * older servers (`auto`), or stdio for servers from the config file.
 */
export async function connectToSource(source: McpSourceEntity, options: ConnectOptions): Promise<McpConnection> {
  if (source.transport === 'stdio') return connect(source, stdioTransport(source), 'stdio', options);
  const url = new URL(source.url!);
  const http = { requestInit: { headers: options.headers }, fetch: options.fetch };
  if (source.transport === 'sse') return connect(source, new SSEClientTransport(url, http), 'sse', options);
  try {
    return await connect(source, new StreamableHTTPClientTransport(url, http), 'streamable_http', options);
  } catch (error) {
    if (source.transport === 'streamable_http') throw error;
    return connect(source, new SSEClientTransport(url, http), 'sse', options);
  }
}

async function connect(
  source: McpSourceEntity,
  transport: Transport,
  kind: McpConnection['transport'],
  options: ConnectOptions,
): Promise<McpConnection> {
  const client = new Client(
    { name: 'toolgate', version },
    options.onToolListChanged
      ? { listChanged: { tools: { autoRefresh: false, onChanged: () => options.onToolListChanged!() } } }
      : {},
  );
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
  return { client, transport: kind, close: () => client.close() };
}

function stdioTransport(source: McpSourceEntity): StdioClientTransport {
  const command = source.command!;
  return new StdioClientTransport({
    command: command.command,
    args: command.args,
    cwd: command.cwd,
    env: stdioEnvironment(command),
    stderr: 'ignore',
  });
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

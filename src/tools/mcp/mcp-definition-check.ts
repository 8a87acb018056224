import { Injectable } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppConfig } from '../../config/app-config';
import { contentHash } from '../catalog/content-hash';
import { Clock } from '../../common/clock';
import type { ExecutableTool } from '../tool-executor';
import { contentOf, definitionContentOf } from './mcp-tool-content';
import { listToolsPage, offeredTool } from './mcp-tool-listing';

/** A server answering more tools than this is not listed further (discovery stops at the same bound). */
const MAX_LISTED_TOOLS = 10_000;

export type DefinitionVerdict = { ok: true } | { ok: false; code: 'pending_change' | 'stale'; message: string };

/** Where the server's current tools are read: an SDK client's connection, or a 2026-07-28 client. */
export interface ToolLister {
  /** Listings are kept per lister: one connection's (or one modern client's) view of the server. */
  readonly key: object;
  listPage(cursor: string | undefined, signal: AbortSignal): Promise<{ tools: unknown[]; nextCursor?: string }>;
}

/**
 * Before a call is sent, compares the definition the server offers now, on the very connection the call
 * will use, with the catalog entry that was approved. A server can change a tool at any moment, without
 * notifications/tools/list_changed; a refresh on an interval would leave a window in which calls reach the
 * changed tool, a check on call leaves none. tools/list is one round trip on an open connection, small next
 * to the call itself. `mcp.definition_check_max_age` lets a busy deployment reuse a listing per connection
 * for a bounded time: fewer round trips, at the price of that window again for a server that changes a tool
 * without saying so. A server's notifications/tools/list_changed (and a refused call) drops the listings of
 * its source at once, so a server that does announce its changes is checked against the new listing.
 */
@Injectable()
export class McpDefinitionCheck {
  private readonly listings = new WeakMap<object, { listedAt: number; generation: number; tools: Map<string, Tool> }>();
  /** Per source name: bumped by `forget`, so listings taken before it are not reused. */
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async verify(lister: ToolLister, entry: ExecutableTool, signal: AbortSignal): Promise<DefinitionVerdict> {
    // Only discovered entries (no registering tenant) hold the server's own definition. A tool registered by
    // hand describes the server's tool in its registrant's words: there is no server definition to compare.
    if (entry.registeredBy !== undefined) return { ok: true };
    const offered = (await this.listing(lister, entry.source.server_name ?? '', signal)).get(entry.source.tool_name!);
    if (!offered)
      return {
        ok: false,
        code: 'stale',
        message: `Tool '${entry.name}' is no longer offered by its MCP server; the call was not sent`,
      };
    if (contentHash(contentOf(offered)) !== contentHash(definitionContentOf(entry.definition)))
      return {
        ok: false,
        code: 'pending_change',
        message: `Tool '${entry.name}' changed on its MCP server since it was approved; the call was not sent and the change waits for review`,
      };
    return { ok: true };
  }

  /** The source's tool list changed (it said so, or a call found it changed): its listings are not reused. */
  forget(sourceName: string): void {
    this.generations.set(sourceName, (this.generations.get(sourceName) ?? 0) + 1);
  }

  /** The SDK client's lister: tools/list on its connection. */
  sdkLister(client: Client): ToolLister {
    return {
      key: client,
      listPage: (cursor, signal) =>
        listToolsPage(client, cursor, { signal, timeout: this.config.mcp.discovery_timeout }),
    };
  }

  private async listing(lister: ToolLister, sourceName: string, signal: AbortSignal): Promise<Map<string, Tool>> {
    const maxAge = this.config.mcp.definition_check_max_age;
    const generation = this.generations.get(sourceName) ?? 0;
    const cached = this.listings.get(lister.key);
    if (
      cached &&
      maxAge > 0 &&
      cached.generation === generation &&
      this.clock.now().getTime() - cached.listedAt < maxAge
    )
      return cached.tools;
    const tools = new Map<string, Tool>();
    let cursor: string | undefined;
    do {
      const page = await lister.listPage(cursor, signal);
      // A tool discovery would leave out is not offered: its entry is stale, as discovery would make it.
      for (const offered of page.tools) {
        const parsed = offeredTool(offered);
        if ('tool' in parsed) tools.set(parsed.tool.name, parsed.tool);
      }
      cursor = page.nextCursor;
    } while (cursor && tools.size < MAX_LISTED_TOOLS);
    this.listings.set(lister.key, { listedAt: this.clock.now().getTime(), generation, tools });
    return tools;
  }
}

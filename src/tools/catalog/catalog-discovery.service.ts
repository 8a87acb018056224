import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { McpToolIcon } from '../tool-executor';
import type { SecurityStatus } from './catalog.types';
import {
  applyDefinition,
  mcpToolSource,
  McpServerOfTool,
  newCatalogEntry,
  NewCatalogEntryFields,
  OfferedDefinition,
} from './catalog-entry';
import { ToolReviewService } from './tool-review.service';
import { PendingChange, ToolEntity } from './tool.entity';
import { ToolRepository } from './tool.repository';

/** The status an origin grants its new tools, applied only if the definition passes the automated checks. */
export interface InitialDecision {
  status: SecurityStatus;
  reviewer: string;
  notes: string;
}

/** A discovered tool seen again: where it comes from now and, when it changed, its new definition. */
export interface RediscoveredTool {
  /** A new name for the entry (its source's naming changed, or a name it waited for came free); else it keeps its own. */
  name?: string;
  source: McpServerOfTool;
  toolName: string;
  icons: McpToolIcon[] | null;
  changed?: { definition: OfferedDefinition; otherNames: string[] };
  now: Date;
}

/**
 * The catalog's write API for discovery: other modules that find tools (MCP servers) change catalog entries
 * only through these methods, each in the caller's transaction, so every entry is built and updated the same
 * way whatever found it.
 */
@Injectable()
export class CatalogDiscovery {
  constructor(
    private readonly tools: ToolRepository,
    private readonly reviews: ToolReviewService,
  ) {}

  /**
   * Every catalog entry, read in the caller's transaction, with the entries discovered on `serverName` locked
   * until it ends. Discovery saves those entries from what it reads here: read without the lock, a review or a
   * model's verdict committed in between would be undone by that save.
   */
  async entries(manager: EntityManager, serverName: string): Promise<ToolEntity[]> {
    await this.tools.lockDiscoveredOn(manager, serverName);
    return this.tools.all(manager);
  }

  /**
   * A new entry for a tool found at its origin, assessed against the other names, with the origin's initial
   * status when the checks allow it, or auto-approved when config allows that.
   */
  async registerDiscovered(
    manager: EntityManager,
    fields: NewCatalogEntryFields,
    otherNames: string[],
    initial: InitialDecision,
  ): Promise<ToolEntity> {
    const entry = newCatalogEntry(fields);
    this.reviews.assess(entry, otherNames);
    await this.tools.save(entry, manager);
    if (initial.status !== 'unreviewed') {
      // An origin's trust covers what it offers only while that passes the same checks as any other tool.
      await this.reviews.decideAutomatically(manager, entry, initial.status, initial.reviewer, initial.notes);
    } else {
      await this.reviews.autoApproveIfQualified(manager, entry);
    }
    return entry;
  }

  /**
   * The entry is live again with its server's current source, icons and name; a changed definition is applied and
   * assessed. A new name needs no new review: the review already compared the server's name and the prefixed one.
   */
  async refreshDiscovered(manager: EntityManager, entry: ToolEntity, seen: RediscoveredTool): Promise<void> {
    const wasStale = entry.stale;
    const renamed = seen.name !== undefined && entry.name !== seen.name;
    entry.stale = false;
    if (renamed) entry.name = seen.name!;
    entry.source = mcpToolSource(seen.source, seen.toolName);
    entry.icons = seen.icons;
    if (seen.changed) {
      applyDefinition(entry, seen.changed.definition, seen.now);
      this.reviews.assess(entry, seen.changed.otherNames);
    } else if (wasStale || renamed) {
      entry.updatedAt = seen.now;
    }
    await this.tools.save(entry, manager);
  }

  /** Keeps what was last approved next to the current definition until a reviewer decides. */
  async recordPendingChange(manager: EntityManager, entry: ToolEntity, change: PendingChange): Promise<void> {
    entry.pendingChange = change;
    await this.tools.save(entry, manager);
  }

  /** The tool is gone from its origin; the entry stays (with its status) and comes back if the tool does. */
  async markStale(manager: EntityManager, entry: ToolEntity, now: Date): Promise<void> {
    entry.stale = true;
    entry.updatedAt = now;
    await this.tools.save(entry, manager);
  }

  /** Every tool of a removed MCP server turns stale. */
  async markServerStale(manager: EntityManager, serverName: string, now: Date): Promise<void> {
    await this.tools.markMcpServerStale(manager, serverName, now);
  }

  /**
   * The server's tools take its new url and credential_key at once: waiting for the next refresh would keep
   * sending the shared token where tenants' own credentials are now required (or the reverse).
   */
  async retargetServer(manager: EntityManager, server: McpServerOfTool): Promise<void> {
    for (const tool of await this.tools.ofMcpServer(manager, server.name))
      await this.tools.setSource(manager, tool.id, mcpToolSource(server, tool.source.tool_name!));
  }
}

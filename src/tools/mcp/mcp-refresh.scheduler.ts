import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { AdvisoryLock, tryWithAdvisoryLock } from '../../database/advisory-locks';
import { BackgroundTasks, RepeatingTask } from '../../observability/background';
import { McpClientPool } from './mcp-client-pool';
import { McpDefinitionCheck } from './mcp-definition-check';
import { McpDiscoveryService } from './mcp-discovery.service';
import { McpSourcesService } from './mcp-sources.service';

/**
 * Refreshes each source on its interval, one replica at a time (a non-blocking advisory lock per tick).
 * Sources are discovered in parallel, each within its own timeout, so a dead or hanging server never
 * delays another. A server's `notifications/tools/list_changed` triggers its refresh at once, and drops the
 * listings the definition check keeps for it.
 */
@Injectable()
export class McpRefreshScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private repeating?: RepeatingTask;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sources: McpSourcesService,
    private readonly discovery: McpDiscoveryService,
    private readonly config: AppConfig,
    pool: McpClientPool,
    private readonly background: BackgroundTasks,
    definitions: McpDefinitionCheck,
  ) {
    pool.onToolListChanged((source) => {
      definitions.forget(source.name);
      background.run('mcp_refresh_list_changed', () => this.discovery.discover(source));
    });
  }

  onApplicationBootstrap(): void {
    this.repeating = this.background.every('mcp_refresh', this.config.mcp.refresh_tick, () => this.refreshDue(), {
      immediately: true,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.repeating?.stop();
  }

  /** One pass over the due sources; joins the pass in progress, skipped while another replica holds the lock. */
  tick(): Promise<void> {
    return this.repeating?.runNow() ?? Promise.resolve();
  }

  private async refreshDue(): Promise<void> {
    await tryWithAdvisoryLock(this.dataSource, AdvisoryLock.mcpRefresh, async () => {
      const due = await this.sources.due();
      await Promise.allSettled(due.map((source) => this.discovery.discover(source)));
    });
  }
}

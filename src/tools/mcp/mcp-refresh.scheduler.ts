import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { AdvisoryLock, withTryAdvisoryLock } from '../../database/advisory-locks';
import { BackgroundTasks } from '../../observability/background';
import { McpClientPool } from './mcp-client-pool';
import { McpDiscoveryService } from './mcp-discovery.service';
import { McpSourcesService } from './mcp-sources.service';

/**
 * Refreshes each source on its interval, one replica at a time (a non-blocking advisory lock per tick).
 * Sources are discovered in parallel, each within its own timeout, so a dead or hanging server never
 * delays another. A server's `notifications/tools/list_changed` triggers its refresh at once.
 */
@Injectable()
export class McpRefreshScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sources: McpSourcesService,
    private readonly discovery: McpDiscoveryService,
    private readonly config: AppConfig,
    pool: McpClientPool,
    private readonly background: BackgroundTasks,
  ) {
    pool.onToolListChanged((source) =>
      background.run('mcp_refresh_list_changed', () => this.discovery.discover(source)),
    );
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.config.mcp.refresh_tick);
    this.timer.unref();
    void this.tick();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass over the due sources; skipped while the previous pass runs or another replica holds the lock. */
  tick(): Promise<void> {
    this.running ??= this.refreshDue()
      .catch((error: unknown) => this.background.failed('mcp_refresh', error))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async refreshDue(): Promise<void> {
    await withTryAdvisoryLock(this.dataSource, AdvisoryLock.mcpRefresh, async () => {
      const due = await this.sources.due();
      await Promise.allSettled(due.map((source) => this.discovery.discover(source)));
    });
  }
}

import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { AdvisoryLock, withAdvisoryLock } from '../../database/advisory-locks';
import { FunctionRegistry } from '../registry/function-registry';
import { applyDefinition, builtinToolSource, newCatalogEntry } from './catalog-entry';
import { CatalogState } from './catalog-state';
import { contentHash } from './content-hash';
import { ToolReviewService } from './tool-review.service';
import { ToolRepository } from './tool.repository';

/**
 * Puts the registry's built-in tools into the catalog at start (source.type = builtin, approved: they
 * are enabled by the operator's config) and refreshes their definitions. Built-ins whose provider is
 * not loaded here are marked stale. Tenant access, rate limit and audit level stay as operators set them.
 */
@Injectable()
export class BuiltinCatalogSync implements OnApplicationBootstrap {
  private readonly logger = new Logger('Catalog');

  constructor(
    private readonly dataSource: DataSource,
    private readonly tools: ToolRepository,
    private readonly registry: FunctionRegistry,
    private readonly reviews: ToolReviewService,
    private readonly state: CatalogState,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await withAdvisoryLock(this.dataSource, AdvisoryLock.builtinCatalogSync, () => this.sync());
    await this.state.changed();
    // The review service's own start-up pass may have run before the built-ins were assessed.
    this.reviews.reviewPending();
  }

  /**
   * One transaction, with the built-in entries locked before they are read: an operator may change one meanwhile on
   * another replica (the advisory lock holds off only other syncs), and saving a copy read before that change
   * would undo it.
   */
  private async sync(): Promise<void> {
    await this.dataSource.transaction((manager) => this.syncIn(manager));
  }

  private async syncIn(manager: EntityManager): Promise<void> {
    await this.tools.lockBuiltins(manager);
    const existing = new Map((await this.tools.all(manager)).map((tool) => [tool.name, tool]));
    const names = [...existing.keys()];
    const loaded = new Set<string>();
    for (const { provider, definition } of this.registry.tools()) {
      const current = existing.get(definition.name);
      if (current && current.source.type !== 'builtin') {
        this.logger.error(
          `Built-in tool '${definition.name}' (provider ${provider}) is shadowed by catalog tool ${current.id}; rename or delete that tool to use the built-in`,
        );
        continue;
      }
      loaded.add(definition.name);
      const now = this.clock.now();
      const source = builtinToolSource(provider, definition.credentialKey);
      const entity =
        current ??
        newCatalogEntry({
          name: definition.name,
          description: definition.description,
          source,
          schema: definition.parameters,
          securityStatus: 'approved',
          tags: ['builtin'],
          reviewedBy: 'config',
          now,
        });
      // An existing entry takes the provider's current definition; its governance fields stay as operators set them.
      applyDefinition(
        entity,
        {
          description: definition.description,
          schema: definition.parameters,
          outputSchema: definition.returns,
          annotations: definition.annotations,
        },
        now,
      );
      entity.source = source;
      entity.stale = false;
      entity.reviewedHash = contentHash(entity);
      this.reviews.assess(
        entity,
        names.filter((name) => name !== entity.name),
      );
      await this.tools.save(entity, manager);
    }
    const missing = [...existing.values()].filter(
      (tool) => tool.source.type === 'builtin' && !tool.stale && !loaded.has(tool.name),
    );
    await this.tools.markStaleByName(
      manager,
      missing.map((tool) => tool.name),
      this.clock.now(),
    );
  }
}

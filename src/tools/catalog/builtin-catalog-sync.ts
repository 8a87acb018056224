import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { AdvisoryLock, withAdvisoryLock } from '../../database/advisory-locks';
import { FunctionRegistry } from '../registry/function-registry';
import { builtinToolSource, newCatalogEntry } from './catalog-entry';
import { CatalogState } from './catalog-state';
import { contentHash } from './content-hash';
import { ToolReviewService } from './tool-review.service';
import { ToolEntity } from './tool.entity';

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
    private readonly registry: FunctionRegistry,
    private readonly reviews: ToolReviewService,
    private readonly state: CatalogState,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await withAdvisoryLock(this.dataSource, AdvisoryLock.builtinCatalogSync, () => this.sync());
    await this.state.changed();
  }

  private async sync(): Promise<void> {
    const repo = this.dataSource.getRepository(ToolEntity);
    const existing = new Map((await repo.find()).map((tool) => [tool.name, tool]));
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
      const now = new Date();
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
      Object.assign(entity, {
        description: definition.description,
        source,
        schema: definition.parameters,
        outputSchema: definition.returns ?? null,
        annotations: definition.annotations ?? null,
        stale: false,
        updatedAt: now,
      });
      entity.reviewedHash = contentHash(entity);
      this.reviews.assess(
        entity,
        names.filter((name) => name !== entity.name),
      );
      await repo.save(entity);
    }
    const missing = [...existing.values()].filter(
      (tool) => tool.source.type === 'builtin' && !tool.stale && !loaded.has(tool.name),
    );
    if (missing.length)
      await repo.update({ name: In(missing.map((tool) => tool.name)) }, { stale: true, updatedAt: new Date() });
  }
}

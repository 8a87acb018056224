import { Injectable } from '@nestjs/common';
import { ChangeEvents } from '../../database/change-events';
import { BundleAssignmentEntity, BundleEntity } from './bundle.entity';
import { BundleRepository } from './bundle.repository';
import { ToolEntity } from './tool.entity';
import { ToolRepository } from './tool.repository';

export const CATALOG_CHANGED = 'catalog.changed';

/** Everything the policy needs, read at once: every tool entry, bundle and assignment. */
export interface CatalogSnapshot {
  toolsByName: Map<string, ToolEntity>;
  bundles: Map<string, BundleEntity>;
  assignments: BundleAssignmentEntity[];
}

/**
 * The catalog as the policy reads it, cached in memory. Any committed change to tools, bundles or
 * assignments is announced with `changed()`, which drops the cache here at once and on every other
 * replica through LISTEN/NOTIFY, so policy changes apply everywhere within moments.
 */
@Injectable()
export class CatalogState {
  private snapshot?: Promise<CatalogSnapshot>;

  constructor(
    private readonly tools: ToolRepository,
    private readonly bundles: BundleRepository,
    private readonly events: ChangeEvents,
  ) {
    events.subscribe(CATALOG_CHANGED, () => this.invalidate());
    events.onReset(() => this.invalidate());
  }

  get(): Promise<CatalogSnapshot> {
    if (!this.snapshot) {
      const loading = this.load();
      this.snapshot = loading;
      // A failed load must not be cached: the next caller tries again.
      loading.catch(() => {
        if (this.snapshot === loading) this.snapshot = undefined;
      });
    }
    return this.snapshot;
  }

  /** Call after committing any change to tools, bundles or assignments. */
  changed(): Promise<void> {
    return this.events.publish(CATALOG_CHANGED);
  }

  private invalidate(): void {
    this.snapshot = undefined;
  }

  private async load(): Promise<CatalogSnapshot> {
    const [tools, bundles, assignments] = await Promise.all([
      this.tools.all(),
      this.bundles.all(),
      this.bundles.allAssignments(),
    ]);
    return {
      toolsByName: new Map(tools.map((tool) => [tool.name, tool])),
      bundles: new Map(bundles.map((bundle) => [bundle.id, bundle])),
      assignments,
    };
  }
}

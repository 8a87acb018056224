import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsRegistry } from '../../observability/metrics.registry';
import { CatalogState } from './catalog-state';

/** Registry metrics: catalog size by status and type, review decisions, denials by reason. */
@Injectable()
export class CatalogMetrics {
  readonly reviews: Counter<'decision'>;
  readonly denials: Counter<'reason'>;

  constructor(metrics: MetricsRegistry, state: CatalogState) {
    this.reviews = metrics.counter({
      name: 'tool_registry_review_decisions_total',
      help: 'Review decisions recorded, by decision (including automatic ones).',
      labelNames: ['decision'],
    });
    this.denials = metrics.counter({
      name: 'tool_registry_denials_total',
      help: 'Tool calls refused by the catalog policy, by reason.',
      labelNames: ['reason'],
    });
    metrics.gauge({
      name: 'tool_registry_tools',
      help: 'Catalog entries by security status and source type.',
      labelNames: ['security_status', 'type'],
      // Computed at scrape time from the cached catalog, so it is never out of date.
      async collect() {
        this.reset();
        const snapshot = await state.get();
        for (const tool of snapshot.toolsByName.values()) {
          this.inc({ security_status: tool.securityStatus, type: tool.source.type });
        }
      },
    });
  }
}

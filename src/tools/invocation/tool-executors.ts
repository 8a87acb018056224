import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { ExecutorKind, ToolExecutor, ToolExecutorForMeta } from '../tool-executor';

/**
 * The executor of each `source.type`, collected at start from the services marked `@ToolExecutorFor()`
 * (through Nest's DiscoveryService, no list). A type without one (a module that is not loaded, function
 * tools the client runs) has no executor here.
 */
@Injectable()
export class ToolExecutors implements OnModuleInit {
  private readonly logger = new Logger('ToolExecutors');
  private readonly byKind = new Map<ExecutorKind, ToolExecutor>();

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders({ metadataKey: ToolExecutorForMeta.KEY })) {
      const kind = this.discovery.getMetadataByDecorator(ToolExecutorForMeta, wrapper);
      const instance: unknown = wrapper.instance;
      if (!kind) continue;
      assertExecutor(instance, kind, wrapper.name);
      const existing = this.byKind.get(kind);
      if (existing && existing !== instance) {
        throw new Error(
          `Two executors claim source type "${kind}": ${existing.constructor.name} and ${wrapper.name}. Keep one.`,
        );
      }
      this.byKind.set(kind, instance);
    }
    this.logger.log(`Tool executors: ${[...this.byKind.keys()].join(', ') || 'none'}`);
  }

  for(kind: ExecutorKind): ToolExecutor | undefined {
    return this.byKind.get(kind);
  }
}

function assertExecutor(instance: unknown, kind: string, className: string): asserts instance is ToolExecutor {
  const candidate = instance as Record<string, unknown> | null;
  const missing = ['canExecute', 'execute'].filter((method) => typeof candidate?.[method] !== 'function');
  if (missing.length > 0) {
    throw new Error(
      `${className} is marked @ToolExecutorFor('${kind}') but does not implement ${missing.join(', ')}()`,
    );
  }
}

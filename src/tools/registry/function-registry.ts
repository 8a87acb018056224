import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { MetricsRegistry } from '../../observability/metrics.registry';
import {
  ExecutableTool,
  Execution,
  ToolCall,
  ToolContext,
  ToolDefinition,
  ToolExecutor,
  ToolExecutorFor,
} from '../tool-executor';
import { FunctionProvider, FunctionProviderMeta } from './function-provider';
import { controllerRoutes } from './provider-routes';
import { RegistryMetrics } from './registry.metrics';

/** A built-in tool with the provider that serves it. */
export interface BuiltinTool {
  provider: string;
  definition: ToolDefinition;
}

/**
 * Collects every `@FunctionProvider()` service at start (through Nest's DiscoveryService, no list),
 * checks each honours the contract, refuses two providers claiming one tool name, and executes tools
 * as the single ToolExecutor of `source.type = builtin`, recording the execution metrics every provider
 * gets without declaring them.
 */
@Injectable()
@ToolExecutorFor('builtin')
export class FunctionRegistry implements ToolExecutor, OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('FunctionRegistry');
  private readonly providers: FunctionProvider[] = [];
  private readonly toolsByName = new Map<string, BuiltinTool & { instance: FunctionProvider }>();
  private readonly providerByRoute = new Map<string, string>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly metrics: RegistryMetrics,
    private readonly metricsRegistry: MetricsRegistry,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders({ metadataKey: FunctionProviderMeta.KEY })) {
      const name = this.discovery.getMetadataByDecorator(FunctionProviderMeta, wrapper) ?? '';
      const instance: unknown = wrapper.instance;
      assertProvider(instance, name, wrapper.name);
      this.register(instance);
      this.mapRoutes(name, wrapper.host?.controllers.values() ?? []);
    }
    const names = this.providers.map((p) => p.name).join(', ') || 'none';
    this.logger.log(`Built-in providers: ${names}; tools: ${[...this.toolsByName.keys()].join(', ') || 'none'}`);
  }

  private register(provider: FunctionProvider): void {
    for (const definition of provider.tools()) {
      const existing = this.toolsByName.get(definition.name);
      if (existing) {
        throw new Error(
          `Tool name "${definition.name}" is claimed by two providers: "${existing.provider}" and "${provider.name}". Rename one of the tools or disable one provider.`,
        );
      }
      this.toolsByName.set(definition.name, { provider: provider.name, definition, instance: provider });
    }
    for (const metric of provider.collectors?.() ?? []) this.metricsRegistry.registry.registerMetric(metric);
    this.providers.push(provider);
  }

  /** Remembers which routes belong to which provider, for the per-provider API metrics. */
  private mapRoutes(provider: string, controllers: Iterable<Parameters<typeof controllerRoutes>[0]>): void {
    for (const controller of controllers) {
      for (const route of controllerRoutes(controller)) this.providerByRoute.set(route, provider);
    }
  }

  providerOfRoute(method: string, path: string): string | undefined {
    return this.providerByRoute.get(`${method} ${path}`);
  }

  /** Every tool of every loaded provider. */
  tools(): BuiltinTool[] {
    return [...this.toolsByName.values()].map(({ provider, definition }) => ({ provider, definition }));
  }

  get(name: string): BuiltinTool | undefined {
    const entry = this.toolsByName.get(name);
    return entry && { provider: entry.provider, definition: entry.definition };
  }

  /** A catalog entry outlives its provider being disabled: only loaded providers' tools run. */
  canExecute(tool: ExecutableTool): boolean {
    return this.toolsByName.has(tool.name);
  }

  async execute(_tool: ExecutableTool, call: ToolCall, ctx: ToolContext): Promise<Execution> {
    const entry = this.toolsByName.get(call.name);
    if (!entry) throw new Error(`No built-in provider serves the tool "${call.name}"`);
    const labels = { provider: entry.provider, tool_name: call.name };
    const stopTimer = this.metrics.executionDuration.startTimer(labels);
    let status = 'error';
    try {
      const result = await entry.instance.execute(call, ctx);
      if (!result.isError) status = 'success';
      return { payload: { kind: 'json', value: result.output }, isError: result.isError };
    } finally {
      stopTimer();
      this.metrics.executions.inc({ ...labels, status });
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const provider of this.providers) {
      try {
        await provider.close?.();
      } catch (error) {
        this.logger.error({ err: error }, `Provider ${provider.name} failed to close`);
      }
    }
  }
}

function assertProvider(instance: unknown, name: string, className: string): asserts instance is FunctionProvider {
  const candidate = instance as Partial<FunctionProvider> | null;
  const missing = ['tools', 'canExecute', 'execute'].filter(
    (method) => typeof (candidate as Record<string, unknown> | null)?.[method] !== 'function',
  );
  if (missing.length > 0) {
    throw new Error(
      `${className} is marked @FunctionProvider('${name}') but does not implement ${missing.join(', ')}()`,
    );
  }
  if (candidate!.name !== name) {
    throw new Error(
      `${className} is marked @FunctionProvider('${name}') but its name property is "${String(candidate!.name)}"`,
    );
  }
}

import { DiscoveryService } from '@nestjs/core';
import type { Metric } from 'prom-client';
import type { ToolCall, ToolContext, ToolDefinition, ToolResult } from '../tool-executor';

/**
 * A built-in tool provider: an injectable service of its own Nest module, marked with
 * `@FunctionProvider('name')`. Its management routes are ordinary controllers of that module.
 */
export interface FunctionProvider {
  readonly name: string;
  tools(): ToolDefinition[];
  canExecute(name: string): boolean;
  execute(call: ToolCall, ctx: ToolContext): Promise<ToolResult>;
  /** Custom prom-client metrics; the registry registers them on the app's registry. */
  collectors?(): Metric[];
  close?(): Promise<void>;
}

/** Marks a provider service; FunctionRegistry finds every marked instance through Nest's DiscoveryService. */
export const FunctionProviderMeta = DiscoveryService.createDecorator<string>();

/** `@FunctionProvider('web_search')` on the provider's injectable service. */
export const FunctionProvider = (name: string): ClassDecorator => FunctionProviderMeta(name);

import { Injectable } from '@nestjs/common';
import type { Identity } from '../../tenancy/request-context';
import { FunctionRegistry } from '../registry/function-registry';
import { Authorization, ResolvedTool, ToolPolicy } from './tool-policy';

/**
 * The policy before the catalog exists: every enabled built-in tool is visible to, and runnable by,
 * every tenant. Which providers are enabled is decided by configuration.
 */
@Injectable()
export class BuiltinToolPolicy extends ToolPolicy {
  constructor(private readonly registry: FunctionRegistry) {
    super();
  }

  async effectiveTools(_identity: Identity, requested?: string[]): Promise<ResolvedTool[]> {
    const wanted = requested && new Set(requested);
    return this.registry
      .tools()
      .filter((tool) => !wanted || wanted.has(tool.definition.name))
      .map((tool) => this.toResolved(tool.provider, tool.definition));
  }

  async resolve(_identity: Identity, name: string): Promise<ResolvedTool | undefined> {
    const tool = this.registry.get(name);
    return tool && this.toResolved(tool.provider, tool.definition);
  }

  async authorize(): Promise<Authorization> {
    return { allowed: true };
  }

  private toResolved(provider: string, definition: ResolvedTool['definition']): ResolvedTool {
    return { name: definition.name, definition, executor: this.registry, source: 'builtin', origin: provider };
  }
}

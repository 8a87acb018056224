import { Controller, Get, Injectable, Module } from '@nestjs/common';
import type { ProviderModule } from '../../src/tools/builtins/builtin-modules';
import { FunctionProvider } from '../../src/tools/registry/function-provider';
import type { ToolCall, ToolDefinition, ToolResult } from '../../src/tools/tool-executor';

/** A tool that does nothing, so a benchmark measures the invocation path alone. */
@Injectable()
@FunctionProvider('bench')
export class BenchProvider {
  readonly name = 'bench';

  tools(): ToolDefinition[] {
    const parameters = { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false };
    return [
      { name: 'noop', description: 'Does nothing.', parameters },
      { name: 'noop_governed', description: 'Does nothing, under audit and a rate limit.', parameters },
    ];
  }

  canExecute(name: string): boolean {
    return name === 'noop' || name === 'noop_governed';
  }

  async execute(call: ToolCall): Promise<ToolResult> {
    return { callId: call.id, output: { ok: true }, isError: false };
  }
}

/** The baseline: an authenticated route of the same app that does no work of its own. */
@Controller('v1/bench')
export class BenchController {
  @Get('ping')
  ping() {
    return { ok: true };
  }
}

@Module({ controllers: [BenchController], providers: [BenchProvider] })
export class BenchModule {}

export const BENCH_PROVIDERS: ProviderModule[] = [{ name: 'bench', module: BenchModule }];

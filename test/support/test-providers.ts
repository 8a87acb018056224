import { Controller, Get, Injectable, Module, Param } from '@nestjs/common';
import { Counter, Metric } from 'prom-client';
import { AppConfig } from '../../src/config/app-config';
import type { ProviderModule } from '../../src/tools/builtins/builtin-modules';
import { FunctionProvider } from '../../src/tools/registry/function-provider';
import type { ToolCall, ToolContext, ToolDefinition, ToolResult } from '../../src/tools/tool-executor';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });

/** Shared base: a provider whose tools are listed in a table of definitions and handlers. */
abstract class TableProvider {
  abstract readonly name: string;
  protected abstract readonly table: Record<
    string,
    { definition: Omit<ToolDefinition, 'name'>; run(call: ToolCall, ctx: ToolContext): Promise<unknown> }
  >;

  tools(): ToolDefinition[] {
    return Object.entries(this.table).map(([name, entry]) => ({ name, ...entry.definition }));
  }

  canExecute(name: string): boolean {
    return name in this.table;
  }

  async execute(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const output = await this.table[call.name].run(call, ctx);
    return { callId: call.id, output, isError: false };
  }
}

const object = (properties: Record<string, unknown> = {}, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** Observed side effects, so tests can see what tools received and whether their signal fired. */
export const observed = {
  lastContext: undefined as ToolContext | undefined,
  aborted: [] as string[],
  closed: [] as string[],
};

@Injectable()
@FunctionProvider('testkit')
export class TestkitProvider extends TableProvider {
  readonly name = 'testkit';
  private readonly echoes: Counter<'tenant'>;

  constructor(config: AppConfig) {
    super();
    this.echoes = new Counter({
      name: `${config.metrics.namespace}_testkit_echoes_total`,
      help: 'Echo calls, by tenant (a provider collector).',
      labelNames: ['tenant'],
      registers: [],
    });
  }

  protected readonly table = {
    echo: {
      definition: {
        description: 'Returns its arguments and the calling tenant.',
        parameters: object({ text: { type: 'string', maxLength: 100 } }),
      },
      run: async (call: ToolCall, ctx: ToolContext) => {
        observed.lastContext = ctx;
        this.echoes.inc({ tenant: ctx.tenantId });
        return { echo: call.arguments, tenant: ctx.tenantId, call_id: call.id };
      },
    },
    slow: {
      definition: {
        description: 'Waits ms milliseconds, honouring its abort signal.',
        parameters: object({ ms: { type: 'integer', minimum: 0 } }, ['ms']),
      },
      run: async (call: ToolCall, ctx: ToolContext) => {
        const { ms } = call.arguments as { ms: number };
        try {
          await sleep(ms, ctx.signal);
        } catch (error) {
          observed.aborted.push(call.id);
          throw error;
        }
        return { waited: ms };
      },
    },
    big: {
      definition: {
        description: 'Returns size characters.',
        parameters: object({ size: { type: 'integer', minimum: 0, maximum: 1_000_000 } }, ['size']),
      },
      run: async (call: ToolCall) => ({ data: 'x'.repeat((call.arguments as { size: number }).size) }),
    },
    hang: {
      definition: { description: 'Never finishes and ignores its signal.', parameters: object() },
      run: () => new Promise<never>(() => undefined),
    },
    explode: {
      definition: { description: 'Throws.', parameters: object() },
      run: async () => {
        throw new Error('kaboom');
      },
    },
    progress: {
      definition: {
        description: 'Emits steps progress events, then finishes.',
        parameters: object({ steps: { type: 'integer', minimum: 1, maximum: 50 } }, ['steps']),
      },
      run: async (call: ToolCall, ctx: ToolContext) => {
        const { steps } = call.arguments as { steps: number };
        for (let step = 1; step <= steps; step++) {
          ctx.progress({ step, of: steps });
          await sleep(5);
        }
        return { steps };
      },
    },
    strict: {
      definition: {
        description: 'Schema-strict: nested arguments, declared result schema; returns what it is told to.',
        parameters: object(
          {
            user: object({ name: { type: 'string', minLength: 1 }, age: { type: 'integer', minimum: 0 } }, ['name']),
            tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
            reply: {},
          },
          ['user'],
        ),
        returns: object({ ok: { type: 'boolean' } }, ['ok']),
      },
      run: async (call: ToolCall) => (call.arguments as { reply?: unknown }).reply ?? { ok: true },
    },
  };

  collectors(): Metric[] {
    return [this.echoes];
  }

  async close(): Promise<void> {
    observed.closed.push(this.name);
  }

  /** Error results (not exceptions) are reported by the provider itself. */
  override async execute(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    if (call.name === 'echo' && (call.arguments as { text?: string }).text === 'fail') {
      return { callId: call.id, output: { error: { message: 'echo refused to echo "fail"' } }, isError: true };
    }
    return super.execute(call, ctx);
  }
}

@Controller('v1/testkit')
export class TestkitController {
  @Get('things/:id')
  thing(@Param('id') id: string) {
    return { id };
  }
}

@Module({ controllers: [TestkitController], providers: [TestkitProvider] })
export class TestkitModule {}

@Injectable()
@FunctionProvider('spare')
export class SpareProvider extends TableProvider {
  readonly name = 'spare';
  protected readonly table = {
    spare_tool: {
      definition: { description: 'A tool of a provider that tests switch off.', parameters: object() },
      run: async () => ({}),
    },
  };
}

@Controller('v1/spare')
export class SpareController {
  @Get()
  index() {
    return { spare: true };
  }
}

@Module({ controllers: [SpareController], providers: [SpareProvider] })
export class SpareModule {}

/** Claims "echo" too: loading it beside testkit must stop start-up. */
@Injectable()
@FunctionProvider('copycat')
export class CopycatProvider extends TableProvider {
  readonly name = 'copycat';
  protected readonly table = {
    echo: { definition: { description: 'Another echo.', parameters: object() }, run: async () => ({}) },
  };
}

@Module({ providers: [CopycatProvider] })
export class CopycatModule {}

/** Marked as a provider but lacks execute(). */
@Injectable()
@FunctionProvider('broken')
export class BrokenProvider {
  readonly name = 'broken';
  tools(): ToolDefinition[] {
    return [];
  }
  canExecute(): boolean {
    return false;
  }
}

@Module({ providers: [BrokenProvider] })
export class BrokenModule {}

export const TEST_PROVIDERS: ProviderModule[] = [
  { name: 'testkit', module: TestkitModule },
  { name: 'spare', module: SpareModule },
  { name: 'copycat', module: CopycatModule },
  { name: 'broken', module: BrokenModule },
];

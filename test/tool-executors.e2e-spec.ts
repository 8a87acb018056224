import { Injectable, Module, Type } from '@nestjs/common';
import { ToolExecutorFor } from '../src/tools/tool-executor';
import type { Execution } from '../src/tools/tool-executor';
import { startApp } from './support/app';
import { TEST_PROVIDERS } from './support/test-providers';

/** A second executor for built-in tools, next to the FunctionRegistry. */
@Injectable()
@ToolExecutorFor('builtin')
class RivalExecutor {
  canExecute(): boolean {
    return true;
  }
  async execute(): Promise<Execution> {
    return { payload: { kind: 'json', value: null }, isError: false };
  }
}

/** Marked as the sandbox executor, but it cannot execute anything. */
@Injectable()
@ToolExecutorFor('sandbox')
class HollowExecutor {}

@Module({ providers: [RivalExecutor] })
class RivalModule {}

@Module({ providers: [HollowExecutor] })
class HollowModule {}

const withModule = (name: string, module: Type) => ({
  providers: [...TEST_PROVIDERS, { name, module }],
  config: { builtins: { file_search: { enabled: false }, [name]: { enabled: true } } },
});

describe('Tool executors start-up checks', () => {
  it('refuses two executors claiming one source type, naming both', async () => {
    await expect(startApp('postgres', withModule('rival', RivalModule))).rejects.toThrow(
      /Two executors claim source type "builtin": (FunctionRegistry and RivalExecutor|RivalExecutor and FunctionRegistry)/,
    );
  });

  it('refuses a marked executor that does not implement the contract', async () => {
    await expect(startApp('postgres', withModule('hollow', HollowModule))).rejects.toThrow(
      "HollowExecutor is marked @ToolExecutorFor('sandbox') but does not implement canExecute, execute()",
    );
  });
});

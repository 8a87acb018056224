import type { DynamicModule, Type } from '@nestjs/common';
import { BUILTIN_PROVIDERS } from './builtin-providers';
import { CodeInterpreterModule } from './code-interpreter/code-interpreter.module';
import { FileSearchModule } from './file-search/file-search.module';
import { WebSearchModule } from './web-search/web-search.module';

/** A provider module and the `builtins.<name>` config key that switches it on. */
export interface ProviderModule {
  name: string;
  module: Type | DynamicModule;
  /** Whether it loads when its config section says nothing (file_search on, web_search off). */
  enabledByDefault?: boolean;
}

/**
 * The built-in provider modules. Which of them load is decided by config (`builtins.<name>.enabled`);
 * a disabled one is never imported, so its tools and routes do not exist. The FunctionRegistry then
 * finds the loaded providers by discovery.
 */
const MODULES: Record<string, Type> = {
  web_search: WebSearchModule,
  file_search: FileSearchModule,
  code_interpreter: CodeInterpreterModule,
};

export const BUILTIN_PROVIDER_MODULES: ProviderModule[] = BUILTIN_PROVIDERS.map(({ name, enabledByDefault }) => ({
  name,
  module: MODULES[name],
  enabledByDefault,
}));

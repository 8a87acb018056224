import type { Config } from '../../config/config.schema';
import { CODE_INTERPRETER_TOOL } from './code-interpreter/code-interpreter.tool';
import { FILE_SEARCH_TOOL } from './file-search/file-search.tool';
import { WEB_SEARCH_TOOL } from './web-search/web-search.tool';

/** A built-in provider: its `builtins.<name>` config section and the tools it serves. */
export interface BuiltinProvider {
  name: string;
  /** Public names (documented, the same on every server), so a caller may be told one is switched off. */
  tools: string[];
  /** Whether it loads when its config section says nothing (file_search on, web_search off). */
  enabledByDefault?: boolean;
}

export const BUILTIN_PROVIDERS: BuiltinProvider[] = [
  { name: 'web_search', tools: [WEB_SEARCH_TOOL] },
  { name: 'file_search', tools: [FILE_SEARCH_TOOL], enabledByDefault: true },
  { name: 'code_interpreter', tools: [CODE_INTERPRETER_TOOL] },
];

/** `builtins.<name>.enabled`, or the provider's default when its section says nothing. */
export function providerEnabled(config: Config, provider: Pick<BuiltinProvider, 'name' | 'enabledByDefault'>): boolean {
  const section = (config.builtins as Record<string, { enabled?: boolean } | undefined>)[provider.name];
  return section?.enabled ?? provider.enabledByDefault ?? false;
}

/** The built-in provider that serves `toolName` but is switched off on this server, if any. */
export function disabledProviderOf(config: Config, toolName: string): BuiltinProvider | undefined {
  return BUILTIN_PROVIDERS.find((provider) => provider.tools.includes(toolName) && !providerEnabled(config, provider));
}

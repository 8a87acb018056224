import { ConfigError } from '../../config/config.loader';
import type { Config } from '../../config/config.schema';
import { BUILTIN_PROVIDER_MODULES, ProviderModule } from './builtin-modules';
import { providerEnabled } from './builtin-providers';

/**
 * The provider modules to import: the built-in ones plus any given (tests define their own), filtered by
 * `builtins.<name>.enabled`. A `builtins` key that names no provider stops start-up, so a typo never
 * silently leaves a provider off.
 */
export function enabledProviderModules(config: Config, extra: ProviderModule[] = []): ProviderModule[] {
  const all = [...BUILTIN_PROVIDER_MODULES, ...extra];
  const known = new Set(all.map((entry) => entry.name));
  const unknown = Object.keys(config.builtins).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `Invalid configuration: builtins.${unknown[0]} names no built-in provider; known: ${[...known].sort().join(', ')}`,
    );
  }
  return all.filter((entry) => providerEnabled(config, entry));
}

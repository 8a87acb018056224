import type { Config } from './config.schema';

/**
 * Injection token and type of the validated configuration. Declaration merging gives the class the
 * shape of `Config`, so `constructor(private readonly config: AppConfig)` is fully typed.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export abstract class AppConfig {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface AppConfig extends Config {}

import { z } from 'zod';
import { ConfigError, parseProviderConfig } from '../../../config/config.loader';
import { flag, integer } from '../../../config/config.schema';
import { byteSize } from '../file-search/file-search.config';

/**
 * `builtins.code_interpreter`: whether it is on, and the bounds on files in and out. Its run limits are the
 * sandbox's (`sandbox.limits`).
 */
export const codeInterpreterConfigSchema = z
  .object({
    enabled: flag().default(false),
    files: z
      .object({
        /** All files of `file_ids` (or of `container.file_ids`) together. */
        max_input_bytes: byteSize().default(50 * 1024 * 1024),
        /** Files read back from /mnt/data per call. */
        max_output_files: integer().pipe(z.number().min(0).max(1000)).default(20),
        max_output_file_bytes: byteSize().default(10 * 1024 * 1024),
        /** All files read back of one call together. */
        max_output_bytes: byteSize().default(50 * 1024 * 1024),
      })
      .strict()
      .prefault({}),
  })
  .strict();

/** The validated section: what the provider runs on. Also the injection token (as FileSearchSettings). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export abstract class CodeInterpreterSettings {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface CodeInterpreterSettings {
  maxInputBytes: number;
  maxOutputFiles: number;
  maxOutputFileBytes: number;
  maxOutputBytes: number;
}

/**
 * Validates `builtins.code_interpreter` at start-up (the module is loaded only when it is enabled): a bad key
 * or a sandbox runtime that is off stops start-up with one line naming the fix.
 */
export function resolveCodeInterpreterSettings(config: {
  builtins: Record<string, unknown>;
  sandbox: { runtime: string };
}): CodeInterpreterSettings {
  const section = parseProviderConfig(config, 'code_interpreter', codeInterpreterConfigSchema);
  if (config.sandbox.runtime === 'off') {
    throw new ConfigError(
      'builtins.code_interpreter.enabled is true but sandbox.runtime is off, so no code could run: set ' +
        'sandbox.runtime to local or kubernetes, or builtins.code_interpreter.enabled to false',
    );
  }
  return {
    maxInputBytes: section.files.max_input_bytes,
    maxOutputFiles: section.files.max_output_files,
    maxOutputFileBytes: section.files.max_output_file_bytes,
    maxOutputBytes: section.files.max_output_bytes,
  };
}

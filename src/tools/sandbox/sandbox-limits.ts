import type { Config } from '../../config/config.schema';

/** The limits every sandbox run gets, from `sandbox.limits`. */
export type SandboxLimits = Config['sandbox']['limits'];

/** Where a sandbox's files directory appears inside it: the path OpenAI's code interpreter uses. */
export const DATA_DIR = '/mnt/data';

/** A file going into a sandbox's files directory, or read back from it. */
export interface SandboxFile {
  /** One path component: no "/", no NUL, not "." or "..". */
  name: string;
  content: Buffer;
}

/** Bounds on what is read back from the files directory after a run. */
export interface SandboxCollectLimits {
  /** Most files read back. */
  maxFiles: number;
  /** Largest file read back, in bytes. */
  maxFileBytes: number;
  /** Most bytes read back in all. */
  maxTotalBytes: number;
}

/** One run of a sandbox tool, whatever runs it. */
export interface SandboxRunRequest {
  /** Which of the `sandbox.max_concurrency` slots the run holds. */
  slot: number;
  /** The catalog's `source.template`: which prepared environment the entrypoint runs in. */
  template: string;
  /** The command to run (absolute path), followed by its arguments. */
  command: string[];
  /** Written to the entrypoint's stdin (the call's arguments as JSON). */
  stdin: string;
  /** The only environment the entrypoint sees besides PATH, HOME, TMPDIR and LANG. */
  env: Record<string, string>;
  /** Whether the run may reach the network. */
  network: boolean;
  signal: AbortSignal;
  /** Put into DATA_DIR before the run starts (a file of the same name is replaced). */
  files?: SandboxFile[];
  /**
   * When set, the regular files of DATA_DIR (top level) that the run created or changed are read back, within
   * these bounds; anything else there (links, pipes, directories, files past a bound) is skipped and named.
   */
  collect?: SandboxCollectLimits;
}

/** What was read back of DATA_DIR after a run: the files, and one line per entry left out (why). */
export interface SandboxOutputFiles {
  files: SandboxFile[];
  skipped: string[];
}

/** How a run ended: it exited (any code), or Toolgate stopped it for the reason given. */
export type SandboxRunOutcome =
  | { ended: 'exited'; exitCode: number; stdout: Buffer; stderr: string; output?: SandboxOutputFiles }
  | { ended: 'stopped'; reason: 'wall_time' | 'output_size' | 'aborted'; stderr: string };

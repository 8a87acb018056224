import type { Config } from '../../config/config.schema';

/** The limits every sandbox run gets, from `sandbox.limits`. */
export type SandboxLimits = Config['sandbox']['limits'];

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
}

/** How a run ended: it exited (any code), or Toolgate stopped it for the reason given. */
export type SandboxRunOutcome =
  | { ended: 'exited'; exitCode: number; stdout: Buffer; stderr: string }
  | { ended: 'stopped'; reason: 'wall_time' | 'output_size' | 'aborted'; stderr: string };

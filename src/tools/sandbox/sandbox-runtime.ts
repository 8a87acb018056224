import type { SandboxRunOutcome, SandboxRunRequest } from './sandbox-limits';

/**
 * A sandbox kept for several runs (the calls of one /v1/responses run): its work directory and DATA_DIR
 * persist from one run to the next, and nothing of it outlives release(). Its runs come one at a time
 * (SandboxRunner queues them); between runs nothing of it is running.
 */
export interface SandboxSession {
  /** One run in the session's sandbox; after release() it is answered `stopped: aborted` without starting. */
  run(request: SandboxRunRequest): Promise<SandboxRunOutcome>;
  /** Stops a run still going, then deletes everything the session holds. Safe to call more than once. */
  release(): Promise<void>;
}

/** What runs sandbox tools: chosen by `sandbox.runtime`. */
export abstract class SandboxRuntime {
  /** Checks at start-up that the runtime can isolate runs; afterwards unavailableReason() tells. */
  abstract start(): Promise<void>;
  /** Why no run can start (one line), or undefined when runs can. */
  abstract unavailableReason(): string | undefined;
  /** Whether this runtime has the template a tool names. */
  abstract knowsTemplate(template: string): boolean;
  /** One run in a fresh sandbox, removed when the run ends. */
  abstract run(request: SandboxRunRequest): Promise<SandboxRunOutcome>;
  /** A sandbox for several runs; it holds nothing (no slot, no process) until its first run. */
  abstract openSession(): SandboxSession;
}

/** `sandbox.runtime: off`: every sandbox tool is refused, saying so. */
export class DisabledSandboxRuntime extends SandboxRuntime {
  async start(): Promise<void> {}
  unavailableReason(): string {
    return 'sandbox tools are turned off (sandbox.runtime: off)';
  }
  knowsTemplate(): boolean {
    return false;
  }
  run(): Promise<SandboxRunOutcome> {
    return Promise.reject(new Error(this.unavailableReason()));
  }
  openSession(): never {
    throw new Error(this.unavailableReason());
  }
}

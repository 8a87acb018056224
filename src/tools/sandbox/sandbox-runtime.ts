import type { SandboxRunOutcome, SandboxRunRequest } from './sandbox-limits';

/** What runs sandbox tools: chosen by `sandbox.runtime`. */
export abstract class SandboxRuntime {
  /** Checks at start-up that the runtime can isolate runs; afterwards unavailableReason() tells. */
  abstract start(): Promise<void>;
  /** Why no run can start (one line), or undefined when runs can. */
  abstract unavailableReason(): string | undefined;
  /** Whether this runtime has the template a tool names. */
  abstract knowsTemplate(template: string): boolean;
  abstract run(request: SandboxRunRequest): Promise<SandboxRunOutcome>;
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
}

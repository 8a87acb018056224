import { Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import type { SandboxRunOutcome, SandboxRunRequest } from './sandbox-limits';
import { SandboxRuntime } from './sandbox-runtime';
import { SandboxSlots } from './sandbox-slots';

/** A run as callers ask for it: the runner picks the slot. */
export type SandboxRun = Omit<SandboxRunRequest, 'slot'>;

/** A session as callers hold it (see SandboxSession): runs queue one behind the other, each in a slot. */
export interface SharedSandbox {
  run(request: SandboxRun): Promise<SandboxRunOutcome>;
  release(): Promise<void>;
}

/**
 * Every sandbox run of this replica goes through here (sandbox tools, code_interpreter): the runtime's start-up
 * check, and at most `sandbox.max_concurrency` runs at once.
 */
@Injectable()
export class SandboxRunner implements OnModuleInit {
  private readonly slots: SandboxSlots;

  constructor(
    private readonly runtime: SandboxRuntime,
    config: AppConfig,
  ) {
    this.slots = new SandboxSlots(config.sandbox.max_concurrency);
  }

  async onModuleInit(): Promise<void> {
    await this.runtime.start();
  }

  /** Why no run can start (one line), or undefined when runs can. */
  unavailableReason(): string | undefined {
    return this.runtime.unavailableReason();
  }

  knowsTemplate(template: string): boolean {
    return this.runtime.knowsTemplate(template);
  }

  run(request: SandboxRun): Promise<SandboxRunOutcome> {
    return this.slots.run((slot) => this.runtime.run({ ...request, slot }));
  }

  /**
   * A sandbox whose files last from one run to the next until release(). It holds a slot only while one of
   * its runs is running, never between them (a response's model may think for minutes between two calls);
   * its runs come one at a time, in the order asked, so that no two runs share its files at once.
   */
  openSession(): SharedSandbox {
    const session = this.runtime.openSession();
    let queue: Promise<unknown> = Promise.resolve();
    let lastSlot: number | undefined;
    return {
      run: (request) => {
        const turn = queue.then(() =>
          this.slots.run((slot) => {
            lastSlot = slot;
            return session.run({ ...request, slot });
          }, lastSlot),
        );
        queue = turn.catch(() => undefined);
        return turn;
      },
      release: () => session.release(),
    };
  }
}

import { Injectable, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import type { SandboxRunOutcome, SandboxRunRequest } from './sandbox-limits';
import { SandboxRuntime } from './sandbox-runtime';
import { SandboxSlots } from './sandbox-slots';

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

  run(request: Omit<SandboxRunRequest, 'slot'>): Promise<SandboxRunOutcome> {
    return this.slots.run((slot) => this.runtime.run({ ...request, slot }));
  }
}

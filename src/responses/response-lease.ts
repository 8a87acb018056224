import { BackgroundTasks } from '../observability/background';
import type { ResponsesRepository } from './responses.repository';

/** Aborts a run whose response was cancelled through POST /cancel on any replica, or whose lease was lost. */
export class ResponseCancelled extends Error {
  constructor() {
    super('The response was cancelled');
  }
}

/**
 * The lease of a running stored response: renewed every third of its length while the loop runs, so a
 * replica that dies leaves a row whose lease runs out and that the sweeper closes as failed. Each renewal
 * also reads `cancel_requested`, so a cancel received by another replica stops the run here.
 */
export class ResponseLease {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly responses: ResponsesRepository,
    private readonly background: BackgroundTasks,
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  hold(responseId: string, abort: AbortController): void {
    this.timer = setInterval(
      () => this.background.run('response_lease_renewal', () => this.renew(responseId, abort)),
      Math.max(100, Math.floor(this.leaseMs / 3)),
    );
    this.timer.unref();
  }

  release(): void {
    clearInterval(this.timer);
  }

  private async renew(responseId: string, abort: AbortController): Promise<void> {
    if (!(await this.responses.renewLease(responseId, this.owner, this.leaseMs))) abort.abort(new ResponseCancelled());
  }
}

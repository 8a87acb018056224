import { DataSource } from 'typeorm';
import { BackgroundTasks } from '../observability/background';

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
    private readonly dataSource: DataSource,
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
    const [rows] = (await this.dataSource.query(
      `UPDATE responses SET lease_expires_at = now() + $3 * interval '1 millisecond'
       WHERE id = $1 AND lease_owner = $2 AND status IN ('queued', 'in_progress')
       RETURNING cancel_requested`,
      [responseId, this.owner, this.leaseMs],
    )) as [{ cancel_requested: boolean }[], number];
    if (rows.length === 0 || rows[0].cancel_requested) abort.abort(new ResponseCancelled());
  }
}

import { Injectable } from '@nestjs/common';

/** Whether the process is draining for shutdown; readiness turns false so load balancers stop sending work. */
@Injectable()
export class Lifecycle {
  private draining = false;

  get isDraining(): boolean {
    return this.draining;
  }

  startDraining(): void {
    this.draining = true;
  }
}

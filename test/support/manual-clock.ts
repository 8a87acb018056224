import { Clock } from '../../src/common/clock';

/** A clock tests move by hand: starts at the real time, advances only when told. */
export class ManualClock extends Clock {
  private current = Date.now();

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(date: Date): void {
    this.current = date.getTime();
  }
}

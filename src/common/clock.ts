/**
 * The time source for anything that depends on the wall clock (rate-limit windows, retention,
 * expiry), so tests can move time instead of waiting for it.
 */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

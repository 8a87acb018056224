/** Callers tracked at once; past this the oldest are forgotten. */
const MAX_KEYS = 50_000;
const WINDOW_MS = 60_000;

/**
 * Calls per caller and tool in the last minute, on this replica, for `request.calls_last_minute` in policy
 * conditions: a fixed-size pair of minute buckets per key, so memory and time per call are constant.
 */
export class RequestCounter {
  private readonly counts = new Map<string, { minute: number; current: number; previous: number }>();

  /** Counts one call and answers how many were made in the sliding minute up to `now` (this one included). */
  hit(key: string, now: number): number {
    const minute = Math.floor(now / WINDOW_MS);
    let entry = this.counts.get(key);
    if (!entry) {
      if (this.counts.size >= MAX_KEYS) this.counts.delete(this.counts.keys().next().value!);
      entry = { minute, current: 0, previous: 0 };
      this.counts.set(key, entry);
    }
    if (entry.minute !== minute) {
      entry.previous = entry.minute === minute - 1 ? entry.current : 0;
      entry.current = 0;
      entry.minute = minute;
    }
    entry.current += 1;
    // The previous minute weighted by how much of it is still inside the window.
    const overlap = 1 - (now % WINDOW_MS) / WINDOW_MS;
    return entry.current + Math.floor(entry.previous * overlap);
  }
}

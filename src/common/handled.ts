/**
 * The promise, marked as handled: its rejection is awaited later, and must not count as unhandled (which ends
 * the process) while the caller is waiting for something else first.
 */
export function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

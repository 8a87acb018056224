/** Rejects with `Error(message)` when `work` has not settled within `ms`; `onTimeout` may release what it holds. */
export function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  message = `timed out after ${ms} ms`,
  onTimeout?: () => void,
): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new Error(message));
    }, ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Milliseconds per call: repeated for at least 200 ms, or once when a single call already takes longer. */
export function timePerCall(work: () => void): number {
  const first = performance.now();
  work();
  const once = performance.now() - first;
  if (once > 200) return once;
  let runs = 0;
  const start = performance.now();
  while (performance.now() - start < 200) {
    work();
    runs++;
  }
  return (performance.now() - start) / runs;
}

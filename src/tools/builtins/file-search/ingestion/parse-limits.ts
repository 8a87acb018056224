/**
 * What processing one file (parsing, chunking, tokenizing) may cost. A document is untrusted input: a few kilobytes of zip or PDF can expand
 * into gigabytes or hours of work, so every dimension has its own cap (builtins.file_search.parse_*, max_*).
 */
export interface ParseLimits {
  /** Time the document thread may work on one file (waits for the caller excluded); it is terminated after it. */
  timeoutMs: number;
  /** Heap one file's work may use in its document thread (old generation); running out ends only that thread. */
  memoryLimitBytes: number;
  /** Bytes a compressed document (DOCX) may expand to, declared and actually inflated. */
  maxDecompressedBytes: number;
  /** Pages of a PDF, counted before any text is extracted. */
  maxPages: number;
  /** Characters of text one file may yield. */
  maxExtractedCharacters: number;
}

/** "8 MB", "1.5 GB", "700 bytes": sizes in messages as operators write them in the config. */
export function describeBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toFixed(1))} ${units[unit]}`;
}

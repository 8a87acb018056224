import type { StatusCount } from '../vector-store-files/vector-store-file.repository';

export interface FileCounts {
  in_progress: number;
  completed: number;
  failed: number;
  cancelled: number;
  total: number;
}

export interface FileTally {
  counts: FileCounts;
  /** Bytes of the completed files' chunks and vectors. */
  usageBytes: number;
}

const empty = (): FileTally => ({
  counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 },
  usageBytes: 0,
});

/**
 * Each store's or batch's tally from the counts per status of its vector store file rows. The counts are
 * read from the rows themselves (never kept as running totals), so they are exact however many workers
 * and replicas change statuses at once.
 */
export function tallyFiles(ids: string[], rows: StatusCount[]): Map<string, FileTally> {
  const tallies = new Map(ids.map((id) => [id, empty()]));
  for (const row of rows) {
    const tally = tallies.get(row.id)!;
    tally.counts[row.status] = row.count;
    tally.counts.total += row.count;
    if (row.status === 'completed') tally.usageBytes += Number(row.bytes);
  }
  return tallies;
}

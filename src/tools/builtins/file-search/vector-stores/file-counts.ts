import type { DataSource } from 'typeorm';

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
 * Counts by status, read from the vector store file rows themselves (never kept as running totals), so
 * they are exact however many workers and replicas change statuses at once.
 */
export async function tallyFiles(
  dataSource: DataSource,
  tenantId: string,
  groupBy: 'vector_store_id' | 'batch_id',
  ids: string[],
): Promise<Map<string, FileTally>> {
  const tallies = new Map(ids.map((id) => [id, empty()]));
  if (ids.length === 0) return tallies;
  const rows = (await dataSource.query(
    `SELECT ${groupBy} AS id, status, count(*)::int AS count, coalesce(sum(usage_bytes), 0)::bigint AS bytes
     FROM file_search_vector_store_files
     WHERE tenant_id = $1 AND ${groupBy} = ANY($2::varchar[])
     GROUP BY 1, 2`,
    [tenantId, ids],
  )) as { id: string; status: keyof FileCounts; count: number; bytes: string }[];
  for (const row of rows) {
    const tally = tallies.get(row.id)!;
    tally.counts[row.status] = row.count;
    tally.counts.total += row.count;
    if (row.status === 'completed') tally.usageBytes += Number(row.bytes);
  }
  return tallies;
}

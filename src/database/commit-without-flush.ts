/**
 * A WITH item that lets the statement's own transaction commit without waiting for its WAL to reach the
 * disk (`synchronous_commit = off` for that transaction alone, through `set_config(..., true)`): the rows
 * are committed and visible to every connection and replica at once; only a crash of the database server
 * itself in the next moments can lose them. Reference it in the statement (`FROM commit_without_flush`), or
 * PostgreSQL skips it. For writes whose loss in a database crash breaks no promise: rate-limit counters (the
 * count is exact across replicas; a database crash forgets the last few hundred milliseconds of calls) and
 * a call's outcome (a crash leaves its `started` record, as a killed process does).
 */
export const COMMIT_WITHOUT_FLUSH = `commit_without_flush AS (SELECT set_config('synchronous_commit', 'off', true))`;

import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const OWNER_ONLY_DIRECTORY = 0o700;
const GROUP_AND_OTHERS = 0o077;

/**
 * The embedded database's files hold every tenant's data, credentials' ciphertext and pg_hba.conf. PGlite
 * writes its initial cluster with mode 0666 whatever the umask, and files PostgreSQL opens through stdio
 * follow the umask, so both are closed here: the umask for what comes, a walk for what exists (this start's
 * fresh cluster and data directories written by earlier versions). Files keep their owner bits (0600 for
 * PostgreSQL's), directories become 0700.
 */
export function restrictToOwner(directory: string): void {
  process.umask(GROUP_AND_OTHERS);
  // Iterative, never following a symlink: the walk stays inside the tree and costs one visit per entry.
  const pending = [directory];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) continue;
    if (stats.isDirectory()) {
      if ((stats.mode & 0o777) !== OWNER_ONLY_DIRECTORY) chmodSync(path, OWNER_ONLY_DIRECTORY);
      for (const entry of readdirSync(path)) pending.push(join(path, entry));
    } else if (stats.isFile() && (stats.mode & GROUP_AND_OTHERS) !== 0) {
      chmodSync(path, stats.mode & 0o700);
    }
  }
}

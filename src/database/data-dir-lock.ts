import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const LOCK_FILE = 'toolgate.pid';

/** Start-up refused because another live process owns the data directory; its message is the whole story. */
export class DataDirInUseError extends Error {}

/** Lock files this process holds: a second embedded database in the same process is refused as well. */
const held = new Set<string>();

/**
 * `<data_dir>/toolgate.pid`, created exclusively with our pid. PGlite is a single-process database: two
 * services writing one data directory would corrupt it. A lock left by a process that no longer exists
 * (a crash, a killed container) is taken over; a lock naming our own pid that this process does not hold
 * was left by an earlier run that had the same pid (pid 1 in a restarted container).
 */
export class DataDirLock {
  private constructor(private readonly path: string) {}

  static async acquire(dataDir: string): Promise<DataDirLock> {
    mkdirSync(dataDir, { recursive: true });
    const path = resolve(join(dataDir, LOCK_FILE));
    if (held.has(path)) throw inUse(process.pid, dataDir);
    // Bounded: each round either creates the file or removes a stale one; losing a race twice more is refused.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (createExclusively(path)) {
        held.add(path);
        return new DataDirLock(path);
      }
      const owner = await readOwner(path);
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) throw inUse(owner, dataDir);
      removeIfStill(path, owner);
    }
    throw new DataDirInUseError(`Cannot take the lock ${path}: other processes keep replacing it`);
  }

  /** Removes the lock, unless another process has (wrongly) replaced it meanwhile. */
  release(): void {
    if (!held.delete(this.path)) return;
    if (readPid(this.path) === process.pid) removeIfStill(this.path, process.pid);
  }
}

function createExclusively(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The owner's pid; a file still empty may be one being written this instant, so it is read once more. */
async function readOwner(path: string): Promise<number | undefined> {
  const pid = readPid(path);
  if (pid !== undefined) return pid;
  await new Promise((done) => setTimeout(done, 200));
  return readPid(path);
}

function readPid(path: string): number | undefined {
  try {
    const text = readFileSync(path, 'utf8').slice(0, 32).trim();
    return /^\d{1,10}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeIfStill(path: string, owner: number | undefined): void {
  if (readPid(path) !== owner) return;
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function inUse(pid: number, dataDir: string): DataDirInUseError {
  return new DataDirInUseError(
    `Another Toolgate (pid ${pid}) is using data directory ${dataDir}; stop it or set TOOLGATE_DATA_DIR`,
  );
}

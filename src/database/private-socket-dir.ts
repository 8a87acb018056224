import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where libpq and `pg` look for a server's socket in a directory given as `host`. */
export const SOCKET_NAME = '.s.PGSQL.5432';
/** sun_path holds 108 bytes on Linux and 104 on macOS, terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = 103;

export interface PrivateSocketDir {
  directory: string;
  socketPath: string;
  /** Removes the directory when it was a temporary one (the socket itself goes when its server closes). */
  remove(): void;
}

/**
 * A directory only this user can enter (0700), for the embedded database's Unix socket:
 * `<data_dir>/pgsocket`, or a fresh temporary directory when that path is too long for a socket address.
 * Whatever sits at the path is replaced, so a symlink planted there cannot redirect the socket.
 */
export function privateSocketDir(dataDir: string): PrivateSocketDir {
  const preferred = resolve(join(dataDir, 'pgsocket'));
  if (Buffer.byteLength(join(preferred, SOCKET_NAME)) <= MAX_SOCKET_PATH_BYTES) {
    replaceWithPrivateDir(preferred);
    return { directory: preferred, socketPath: join(preferred, SOCKET_NAME), remove: () => undefined };
  }
  const temporary = mkdtempSync(join(tmpdir(), 'toolgate-pg-'));
  chmodSync(temporary, 0o700);
  return {
    directory: temporary,
    socketPath: join(temporary, SOCKET_NAME),
    remove: () => rmSync(temporary, { recursive: true, force: true }),
  };
}

function replaceWithPrivateDir(path: string): void {
  const existing = lstatSafe(path);
  if (existing && (!existing.isDirectory() || existing.isSymbolicLink())) rmSync(path, { force: true });
  mkdirSync(path, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask and ignored for a directory that already existed.
  chmodSync(path, 0o700);
  // A socket left by a process that died; the data directory lock says nobody else is serving it.
  rmSync(join(path, SOCKET_NAME), { force: true });
}

function lstatSafe(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

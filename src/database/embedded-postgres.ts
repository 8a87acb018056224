import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { chmodSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DataDirLock } from './data-dir-lock';
import { restrictToOwner } from './owner-only-files';
import { keepExtendedQueriesTogether } from './pglite-protocol-affinity';
import { privateSocketDir, PrivateSocketDir } from './private-socket-dir';

/**
 * The embedded default: PGlite (PostgreSQL compiled to WASM) stored under the data directory and served
 * over the Postgres wire protocol, so the ordinary `pg` driver, TypeORM and LISTEN/NOTIFY work exactly as
 * against a PostgreSQL server. The wire server has no authentication, so it listens on a Unix socket that
 * only this user can reach (socket 0600 in a 0700 directory), never on a TCP port any local process could
 * connect to. The socket server keeps each connection's transaction on that connection. The data directory
 * and everything in it are for this user alone (0700 directories, 0600 files).
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    private readonly socketDir: PrivateSocketDir,
    private readonly lock: DataDirLock,
    readonly url: string,
    readonly directory: string,
  ) {}

  static async start(dataDir: string, maxConnections: number): Promise<EmbeddedPostgres> {
    const lock = await DataDirLock.acquire(dataDir);
    let db: PGlite | undefined;
    let socketDir: PrivateSocketDir | undefined;
    try {
      const directory = resolve(join(dataDir, 'pgdata'));
      mkdirSync(directory, { recursive: true });
      chmodSync(dataDir, 0o700);
      db = await PGlite.create({ dataDir: directory, extensions: { vector } });
      restrictToOwner(directory);
      socketDir = privateSocketDir(dataDir);
      const server = new PGLiteSocketServer({ db, path: socketDir.socketPath, maxConnections });
      keepExtendedQueriesTogether(server);
      await server.start();
      chmodSync(socketDir.socketPath, 0o600);
      // pg reads a directory as `host` as the place of the server's socket (.s.PGSQL.<port>).
      const url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir.directory)}`;
      return new EmbeddedPostgres(db, server, socketDir, lock, url, directory);
    } catch (error) {
      await db?.close().catch(() => undefined);
      socketDir?.remove();
      lock.release();
      throw error;
    }
  }

  async stop(): Promise<void> {
    try {
      await this.server.stop();
      await this.db.close();
    } finally {
      this.socketDir.remove();
      this.lock.release();
    }
  }
}

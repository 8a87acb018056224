import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { keepExtendedQueriesTogether } from './pglite-protocol-affinity';

/**
 * The embedded default: PGlite (PostgreSQL compiled to WASM) stored under the data directory and served
 * on a loopback port, so the ordinary `pg` driver, TypeORM and LISTEN/NOTIFY work exactly as against a
 * PostgreSQL server. The socket server keeps each connection's transaction on that connection.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly url: string,
    readonly directory: string,
  ) {}

  static async start(dataDir: string, maxConnections: number): Promise<EmbeddedPostgres> {
    const directory = resolve(join(dataDir, 'pgdata'));
    mkdirSync(directory, { recursive: true });
    const db = await PGlite.create({ dataDir: directory, extensions: { vector } });
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
    keepExtendedQueriesTogether(server);
    await server.start();
    return new EmbeddedPostgres(db, server, `postgres://postgres@${server.getServerConn()}/postgres`, directory);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
  }
}

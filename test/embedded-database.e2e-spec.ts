import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { bearer } from './support/app';
import { listeningTcpPorts } from './support/listening-ports';
import {
  buildService,
  ChildOutput,
  cleanEnv,
  freePort,
  MAIN,
  runNode,
  ServerProcess,
  tempDir,
} from './support/server-process';

const ADMIN_KEY = 'tg_test_admin_embedded_db_0123456789abcdef';
const SOCKET = '.s.PGSQL.5432';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every file and directory under `root` (symlinks not followed). */
function treeOf(root: string): string[] {
  const paths = [root];
  for (let index = 0; index < paths.length; index++) {
    if (lstatSync(paths[index]).isDirectory())
      paths.push(...readdirSync(paths[index]).map((name) => join(paths[index], name)));
  }
  return paths;
}

/** Paths under `root` that users other than the owner may read, write or enter. */
const openToOthers = (root: string) => treeOf(root).filter((path) => (lstatSync(path).mode & 0o077) !== 0);

/** A pid that certainly belonged to a process and no longer does. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => child.once('exit', done));
  return child.pid!;
}

/** Whether a server process started or exited first (an old build would start a second server). */
async function startedOrExited(output: ChildOutput): Promise<'started' | 'exited'> {
  return Promise.race([
    output.exited.then(() => 'exited' as const),
    output.waitFor(/Toolgate listening on/).then(
      () => 'started' as const,
      () => 'exited' as const,
    ),
  ]);
}

/** Embedded PGlite socket paths this process's servers listen on, from /proc/net/unix. */
/**
 * Paths of the Unix sockets named `name` that process `pid` holds open: other suites running beside this one
 * open sockets of the same name, so a socket is matched to the server by the inode of one of its descriptors.
 */
function unixSocketsOf(pid: number, name: string): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch {
      // Closed between the listing and the read.
    }
  }
  return readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => inodes.has(fields[6]) && fields[7]?.endsWith(`/${name}`))
    .map((fields) => fields[7]);
}

/** The real server process on the embedded database: who can reach the database, and who may open it. */
describe('the embedded database of the server process', () => {
  const cwd = tempDir();
  const dataDir = join(cwd, 'data');
  const lockFile = join(dataDir, 'toolgate.pid');
  const socketDir = join(dataDir, 'pgsocket');
  const servers: ServerProcess[] = [];
  const others: ChildOutput[] = [];

  const start = async (port: number, dir = './data'): Promise<ServerProcess> => {
    const env = { PORT: String(port), HOST: '127.0.0.1', TOOLGATE_DATA_DIR: dir, ADMIN_API_KEY: ADMIN_KEY };
    const server = await ServerProcess.start({ ...env, LOG_LEVEL: 'warn' }, cwd);
    servers.push(server);
    return server;
  };

  beforeAll(buildService, 300_000);
  afterAll(async () => {
    for (const server of servers) await server.kill();
    for (const other of others) {
      if (other.child.exitCode === null && other.child.signalCode === null) other.child.kill('SIGKILL');
      await other.exited;
    }
    rmSync(cwd, { recursive: true, force: true });
  });

  // One server's life on one data directory: what it holds while running is what a second server is refused
  // and what its shutdown must release.
  it(
    'serves the database on a Unix socket only its user can reach (0600 in a 0700 directory), on no TCP port; ' +
      'refuses a second server on the same data directory; releases the lock and the socket on shutdown, ' +
      'and takes over a lock whose process is gone',
    async () => {
      const firstPort = await freePort();
      const first = await start(firstPort);
      const pid = first.output.child.pid!;

      expect(modeOf(socketDir)).toBe(0o700);
      expect(statSync(join(socketDir, SOCKET)).isSocket()).toBe(true);
      expect(modeOf(join(socketDir, SOCKET))).toBe(0o600);
      // The HTTP port is the only TCP port the process listens on: the database has none.
      expect(listeningTcpPorts(pid)).toEqual([firstPort]);
      // The service itself reaches its database through the socket.
      const keys = await request(first.url).get('/v1/admin/api_keys').set(bearer(ADMIN_KEY)).expect(200);
      expect(keys.body.object).toBe('list');
      expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(pid));

      // A second server on the same data directory: one line and a non-zero exit.
      const env = { PORT: String(await freePort()), HOST: '127.0.0.1', TOOLGATE_DATA_DIR: './data' };
      const second = runNode(MAIN, [], cleanEnv({ ...env, ADMIN_API_KEY: ADMIN_KEY }), cwd);
      others.push(second);

      expect(await startedOrExited(second)).toBe('exited');
      expect((await second.exited).code).toBe(1);
      expect(second.stderr).toBe(
        `Another Toolgate (pid ${first.output.child.pid}) is using data directory ./data; stop it or set TOOLGATE_DATA_DIR\n`,
      );
      await request(first.url).get('/readyz').expect(200);

      // Shutdown releases the lock and the socket; a lock left by a process that is gone is taken over.
      expect(await first.stop()).toEqual({ code: 0, signal: null });
      expect(existsSync(lockFile)).toBe(false);
      expect(existsSync(join(socketDir, SOCKET))).toBe(false);

      writeFileSync(lockFile, `${await deadPid()}\n`);
      const next = await start(await freePort());
      expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(next.output.child.pid));
      await request(next.url).get('/v1/admin/api_keys').set(bearer(ADMIN_KEY)).expect(200);
      expect(await next.stop()).toEqual({ code: 0, signal: null });
    },
    180_000,
  );

  it('keeps the data directory to its user (0700 directories, 0600 files), closing up one an older version left open', async () => {
    const dir = join(cwd, 'private-data');
    const first = await start(await freePort(), dir);
    await request(first.url)
      .post('/v1/admin/api_keys')
      .set(bearer(ADMIN_KEY))
      .send({ name: 'reader', tenant_id: 'tenant-a' })
      .expect(201);
    expect(await first.stop()).toEqual({ code: 0, signal: null });

    const files = treeOf(dir).filter((path) => lstatSync(path).isFile());
    expect(files.length).toBeGreaterThan(900);
    expect(files).toContain(join(dir, 'pgdata/pg_hba.conf'));
    expect(openToOthers(dir)).toEqual([]);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, 'pgdata/pg_hba.conf'))).toBe(0o600);

    // What earlier versions left: the database's files 0666 (PGlite's own mode), directories 0755.
    chmodSync(dir, 0o755);
    for (const path of treeOf(join(dir, 'pgdata'))) chmodSync(path, lstatSync(path).isDirectory() ? 0o755 : 0o666);
    expect(openToOthers(dir).length).toBeGreaterThan(900);
    const next = await start(await freePort(), dir);
    const keys = await request(next.url).get('/v1/admin/api_keys').set(bearer(ADMIN_KEY)).expect(200);
    expect(keys.body.data.map((key: { name: string }) => key.name)).toContain('reader');
    expect(openToOthers(dir)).toEqual([]);
    expect(await next.stop()).toEqual({ code: 0, signal: null });
    expect(openToOthers(dir)).toEqual([]);
    // Two starts of the real server, each of which can take minutes on a loaded machine.
  }, 600_000);

  it('puts the socket in a private temporary directory when the data directory path is too long for one', async () => {
    const longDir = join(cwd, 'a-data-directory-whose-path-is-too-long-for-a-unix-socket-address'.repeat(2));
    mkdirSync(longDir);
    const server = await start(await freePort(), longDir);

    const socket = unixSocketsOf(server.output.child.pid!, SOCKET)[0];
    expect(socket).toBeDefined();
    expect(modeOf(socket!)).toBe(0o600);
    expect(modeOf(dirname(socket!))).toBe(0o700);
    expect(listeningTcpPorts(server.output.child.pid!)).toHaveLength(1);
    await request(server.url).get('/readyz').expect(200);

    expect(await server.stop()).toEqual({ code: 0, signal: null });
    expect(existsSync(dirname(socket!))).toBe(false);
  });
});

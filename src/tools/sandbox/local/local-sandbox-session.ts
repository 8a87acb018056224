import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxRunOutcome, SandboxRunRequest } from '../sandbox-limits';
import type { SandboxSession } from '../sandbox-runtime';
import { collectFiles, handOver, Owner, placeFiles, snapshot } from './data-dir';

/** A session's host directories: `work` is the sandbox's WORK_DIR, `data` its DATA_DIR. */
export interface SessionDirs {
  root: string;
  work: string;
  data: string;
}

/** What a local session needs of its runtime. */
export interface SessionHost {
  /** Where session directories are made. */
  workRoot: string;
  /** The user a slot's runs have (undefined: the service's own). */
  ownerOf(slot: number): Owner;
  /** Runs one request under bubblewrap in these directories. */
  spawn(dirs: SessionDirs, request: SandboxRunRequest, signal: AbortSignal): Promise<SandboxRunOutcome>;
}

const ABORTED: SandboxRunOutcome = { ended: 'stopped', reason: 'aborted', stderr: '' };

/**
 * One local sandbox for several runs: a private host directory created at the first run, owned by the user of
 * the slot running in it (handed over when a run holds another slot), deleted by release(). Runs come one at a
 * time (SandboxRunner queues them).
 */
export class LocalSandboxSession implements SandboxSession {
  private dirs?: SessionDirs;
  private owner: Owner;
  private current?: { stop: AbortController; done: Promise<SandboxRunOutcome> };
  private released = false;

  constructor(private readonly host: SessionHost) {}

  async run(request: SandboxRunRequest): Promise<SandboxRunOutcome> {
    // A call cancelled while it waited for a slot starts nothing; neither does one after release().
    if (this.released || request.signal.aborted) return ABORTED;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    request.signal.addEventListener('abort', onAbort, { once: true });
    const done = this.runIn(request, stop.signal);
    this.current = { stop, done };
    try {
      return await done;
    } finally {
      this.current = undefined;
      request.signal.removeEventListener('abort', onAbort);
    }
  }

  async release(): Promise<void> {
    this.released = true;
    const current = this.current;
    if (current) {
      current.stop.abort();
      await current.done.catch(() => undefined);
    }
    if (this.dirs) await rm(this.dirs.root, { recursive: true, force: true });
  }

  private async runIn(request: SandboxRunRequest, signal: AbortSignal): Promise<SandboxRunOutcome> {
    const dirs = await this.directoriesFor(this.host.ownerOf(request.slot));
    // release() may have come while the directories were made: it deletes them once this run is done.
    if (this.released || signal.aborted) return ABORTED;
    if (request.files?.length) await placeFiles(dirs.data, request.files, this.owner);
    const before = request.collect ? await snapshot(dirs.data) : undefined;
    const outcome = await this.host.spawn(dirs, request, signal);
    if (outcome.ended !== 'exited' || !request.collect) return outcome;
    return { ...outcome, output: await collectFiles(dirs.data, before!, request.collect) };
  }

  /** The session's directories, made at the first run and owned by the user of the run about to start. */
  private async directoriesFor(owner: Owner): Promise<SessionDirs> {
    if (!this.dirs) {
      const root = await mkdtemp(join(this.host.workRoot, 'toolgate-sandbox-'));
      const dirs = { root, work: join(root, 'work'), data: join(root, 'data') };
      this.dirs = dirs;
      await mkdir(dirs.work, { mode: 0o700 });
      await mkdir(dirs.data, { mode: 0o700 });
      if (owner) for (const dir of [dirs.root, dirs.work, dirs.data]) await chown(dir, owner.uid, owner.gid);
      this.owner = owner;
    } else if (owner && owner.uid !== this.owner?.uid) {
      await handOver(this.dirs.root, owner);
      this.owner = owner;
    }
    return this.dirs;
  }
}

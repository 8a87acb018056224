import { Injectable, Logger } from '@nestjs/common';
import { ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { AppConfig } from '../../../config/app-config';
import { SandboxRunOutcome, SandboxRunRequest } from '../sandbox-limits';
import { SandboxRuntime, SandboxSession } from '../sandbox-runtime';
import { BubblewrapPlan, bubblewrapCommand, WORK_DIR } from './bubblewrap-command';
import type { Owner } from './data-dir';
import { LocalSandboxSession, SessionDirs } from './local-sandbox-session';

/** What the entrypoint's stderr is kept of, for the error message of a failed run. */
const STDERR_KEPT = 4096;
/** The PATH of the tools bwrap and prlimit themselves are looked up on. */
const HOST_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Runs each call's entrypoint under bubblewrap on this host (see bubblewrap-command.ts for the isolation).
 * Start-up checks that isolation really works by running `true` in the same sandbox; without it every run
 * is refused with that one-line reason, never started unisolated.
 */
@Injectable()
export class LocalSandboxRuntime extends SandboxRuntime {
  private readonly logger = new Logger('LocalSandboxRuntime');
  private unavailable: string | undefined = 'the isolation check has not run yet';

  constructor(private readonly config: AppConfig) {
    super();
  }

  async start(): Promise<void> {
    const session = this.openSession();
    try {
      const outcome = await session.run({
        slot: 0,
        template: '',
        command: ['/bin/true'],
        stdin: '',
        env: {},
        network: false,
        signal: new AbortController().signal,
      });
      this.unavailable =
        outcome.ended === 'exited' && outcome.exitCode === 0
          ? undefined
          : `bubblewrap cannot create a sandbox here (${firstLine(outcome.stderr) || describe(outcome)})`;
    } catch (error) {
      this.unavailable = `${this.config.sandbox.local.bwrap_path} or ${this.config.sandbox.local.prlimit_path} cannot be run (${(error as Error).message}); install the Debian package "bubblewrap"`;
    } finally {
      await session.release();
    }
    if (this.unavailable) this.logger.error(`Sandbox tools are refused: ${this.unavailable}`);
    else this.logger.log('Sandbox tools run locally under bubblewrap');
  }

  unavailableReason(): string | undefined {
    return this.unavailable;
  }

  /** Local templates are directories named in `sandbox.local.templates`. */
  knowsTemplate(template: string): boolean {
    return Object.hasOwn(this.config.sandbox.local.templates, template);
  }

  /** A session of one run: the same code path, its directory gone when the run ends. */
  async run(request: SandboxRunRequest): Promise<SandboxRunOutcome> {
    const session = this.openSession();
    try {
      return await session.run(request);
    } finally {
      await session.release();
    }
  }

  openSession(): SandboxSession {
    return new LocalSandboxSession({
      workRoot: this.config.sandbox.local.work_root || tmpdir(),
      ownerOf: (slot) => this.runAs(slot),
      spawn: (dirs, request, signal) => this.spawnRun(this.plan(dirs, request), request.slot, request.stdin, signal),
    });
  }

  private plan(dirs: SessionDirs, request: SandboxRunRequest): BubblewrapPlan {
    const { local, limits } = this.config.sandbox;
    return {
      prlimitPath: local.prlimit_path,
      bwrapPath: local.bwrap_path,
      limits,
      workDir: dirs.work,
      dataDir: dirs.data,
      templateDir: request.template ? local.templates[request.template] : undefined,
      command: request.command,
      env: { ...request.env, ...baseEnv() },
      network: request.network,
      hidden: this.ownPaths(),
    };
  }

  /** Toolgate's own state on disk, which no sandbox may see even if it lies under a system directory. */
  private ownPaths(): BubblewrapPlan['hidden'] {
    const { secrets } = this.config;
    const files = [secrets.encryption_key_file, ...(secrets.previous_key_files ?? [])].filter((file): file is string =>
      Boolean(file),
    );
    return [
      { path: this.config.data_dir, directory: true },
      ...files.map((path) => ({ path, directory: isDirectory(path) })),
    ];
  }

  /**
   * A service running as root hands each slot's runs to an unprivileged user of their own, from
   * `sandbox.local.first_uid` on: the process limit counts per user, so a fork bomb in one run cannot use up
   * another's. (A service that is not root runs every sandbox as itself: they share one process limit.)
   */
  private runAs(slot: number): Owner {
    if (process.getuid?.() !== 0) return undefined;
    const { first_uid, gid } = this.config.sandbox.local;
    return { uid: first_uid + slot, gid };
  }

  private spawnRun(plan: BubblewrapPlan, slot: number, stdin: string, signal: AbortSignal): Promise<SandboxRunOutcome> {
    const { file, args } = bubblewrapCommand(plan);
    const { wall_time, max_output_bytes } = this.config.sandbox.limits;
    return new Promise((resolve, reject) => {
      // Its own process group: a stop reaches prlimit/bwrap and, through --die-with-parent, everything inside.
      const child = spawn(file, args, {
        detached: true,
        cwd: '/',
        env: { PATH: HOST_PATH },
        stdio: ['pipe', 'pipe', 'pipe'],
        ...this.runAs(slot),
      });
      const stdout: Buffer[] = [];
      let stdoutBytes = 0;
      let stderr = '';
      let stoppedFor: 'wall_time' | 'output_size' | 'aborted' | undefined;
      const stop = (reason: NonNullable<typeof stoppedFor>) => {
        stoppedFor ??= reason;
        killGroup(child);
      };
      const timer = setTimeout(() => stop('wall_time'), wall_time);
      const onAbort = () => stop('aborted');
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      child.stdout!.on('data', (chunk: Buffer) => {
        if (stoppedFor) return;
        stdoutBytes += chunk.length;
        if (stdoutBytes > max_output_bytes) return stop('output_size');
        stdout.push(chunk);
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8', 0, STDERR_KEPT - stderr.length);
      });
      // A run that does not read its input closes the pipe: not an error of the service.
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(stdin);
      child.once('error', (error) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        reject(error);
      });
      child.once('close', (code, exitSignal) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        // Whatever is left in the group (nothing, normally: bwrap's PID namespace went with it).
        killGroup(child);
        if (stoppedFor) return resolve({ ended: 'stopped', reason: stoppedFor, stderr });
        const exitCode = code ?? 128 + signalNumber(exitSignal);
        resolve({ ended: 'exited', exitCode, stdout: Buffer.concat(stdout), stderr });
      });
    });
  }
}

/** What every run's environment holds; nothing of Toolgate's own. */
function baseEnv(): Record<string, string> {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: WORK_DIR, TMPDIR: '/tmp', LANG: 'C.UTF-8' };
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

function signalNumber(name: NodeJS.Signals | null): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGKILL: 9, SIGSEGV: 11, SIGXCPU: 24, SIGXFSZ: 25 };
  return (name && numbers[name]) ?? 0;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.slice(0, 300) ?? '';
}

function describe(outcome: SandboxRunOutcome): string {
  return outcome.ended === 'exited' ? `exit code ${outcome.exitCode}` : `stopped: ${outcome.reason}`;
}

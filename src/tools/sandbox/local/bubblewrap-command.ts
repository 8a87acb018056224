import { isAbsolute, relative, resolve } from 'node:path';
import { DATA_DIR, SandboxLimits } from '../sandbox-limits';

/**
 * Where the run's private, writable work directory and the template's files appear inside the sandbox (its
 * files directory, for files in and out, at DATA_DIR).
 */
export const WORK_DIR = '/sandbox';
export const TEMPLATE_DIR = '/template';

/** The read-only system every sandbox sees: programs and libraries, nothing of the host's state. */
const SYSTEM_BINDS = ['/usr'];
const SYSTEM_LINKS: [string, string][] = [
  ['usr/bin', '/bin'],
  ['usr/sbin', '/sbin'],
  ['usr/lib', '/lib'],
  ['usr/lib64', '/lib64'],
];
/** Host files a program needs that hold no secret (bound when present). */
const ETC_FILES = ['/etc/ld.so.cache', '/etc/localtime', '/etc/ssl', '/etc/ca-certificates', '/etc/alternatives'];
/** Name resolution, only for runs with network. */
const NETWORK_ETC_FILES = ['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/gai.conf'];

/** Sandboxed work yields the CPU to the service itself (health checks, other calls) under load. */
const NICENESS = '10';

export interface BubblewrapPlan {
  prlimitPath: string;
  bwrapPath: string;
  limits: SandboxLimits;
  /** Host directory bound read-write at WORK_DIR. */
  workDir: string;
  /** Host directory bound read-write at DATA_DIR. */
  dataDir: string;
  /** Host directory bound read-only at TEMPLATE_DIR. */
  templateDir?: string;
  command: string[];
  env: Record<string, string>;
  network: boolean;
  /**
   * Host paths of Toolgate's own state (data directory, key files). They are not bound at all; should one lie
   * inside a bound system directory, it is covered (a directory by an empty tmpfs, a file by /dev/null).
   */
  hidden: { path: string; directory: boolean }[];
}

/**
 * nice (a lower CPU priority), prlimit (resource limits, inherited by every process of the run) then bwrap: every namespace unshared (no
 * network unless asked), a cleared environment, a read-only system, a private /tmp and work directory, its own
 * session and PID namespace, and --die-with-parent so that no run outlives the service.
 */
export function bubblewrapCommand(plan: BubblewrapPlan): { file: string; args: string[] } {
  const { limits } = plan;
  const args = [
    '-n',
    NICENESS,
    plan.prlimitPath,
    `--as=${limits.memory_bytes}`,
    `--cpu=${limits.cpu_seconds}`,
    `--nproc=${limits.max_processes}`,
    `--fsize=${limits.max_file_bytes}`,
    '--core=0',
    '--',
    plan.bwrapPath,
    '--unshare-all',
    ...(plan.network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    ...SYSTEM_BINDS.flatMap((dir) => ['--ro-bind', dir, dir]),
    ...SYSTEM_LINKS.flatMap(([target, link]) => ['--symlink', target, link]),
    ...[...ETC_FILES, ...(plan.network ? NETWORK_ETC_FILES : [])].flatMap((file) => ['--ro-bind-try', file, file]),
    ...hiddenCovers(plan.hidden),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--bind',
    plan.workDir,
    WORK_DIR,
    '--bind',
    plan.dataDir,
    DATA_DIR,
    ...(plan.templateDir ? ['--ro-bind', plan.templateDir, TEMPLATE_DIR] : []),
    '--chdir',
    WORK_DIR,
    ...Object.entries(plan.env).flatMap(([name, value]) => ['--setenv', name, value]),
    '--',
    ...plan.command,
  ];
  return { file: 'nice', args };
}

/** Covers for Toolgate's own paths that fall inside a bound system directory. */
function hiddenCovers(hidden: BubblewrapPlan['hidden']): string[] {
  const bound = [...SYSTEM_BINDS, ...ETC_FILES];
  return hidden
    .map(({ path, directory }) => ({ path: resolve(path), directory }))
    .filter(({ path }) => bound.some((root) => isInside(path, root)))
    .flatMap(({ path, directory }) => (directory ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path]));
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

import { constants } from 'node:fs';
import { lchown, lstat, open, opendir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxCollectLimits, SandboxFile, SandboxOutputFiles } from '../sandbox-limits';

/**
 * The host side of a sandbox's files: putting input files in, reading the run's files back, handing a
 * session's directory over to another user. Everything in these directories was written by untrusted code,
 * so nothing here follows a link or opens anything but a regular file, and every walk is bounded. They run
 * only between runs: no process of the sandbox is alive to swap an entry while it is looked at.
 */

/** Most directory entries looked at (a run may create millions of files); past it the rest is ignored, said so. */
export const MAX_ENTRIES_SCANNED = 20_000;
/** Lines of `skipped` kept; the rest are counted in one last line. */
const MAX_SKIPPED_LINES = 20;
/** What is opened: never through a link, never blocking on a FIFO. */
const OPEN_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const OPEN_CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

export type Owner = { uid: number; gid: number } | undefined;

/** Whether a name is one safe path component (what SandboxFile promises). */
export function isPlainName(name: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  return name !== '.' && name !== '..' && name.length > 0 && !/[/\u0000-\u001f\u007f\ufffd]/.test(name);
}

/** Writes the files into `dir`, replacing whatever entry of the same name is there (a link is replaced, not followed). */
export async function placeFiles(dir: string, files: SandboxFile[], owner: Owner): Promise<void> {
  for (const file of files) {
    if (!isPlainName(file.name)) throw new Error(`Cannot put a file named ${JSON.stringify(file.name)} in a sandbox`);
    const path = join(dir, file.name);
    await rm(path, { recursive: true, force: true });
    const handle = await open(path, OPEN_CREATE, 0o600);
    try {
      await handle.writeFile(file.content);
      if (owner) await handle.chown(owner.uid, owner.gid);
    } finally {
      await handle.close();
    }
  }
}

/** What the top level of `dir` holds, name -> identity of its content (inode, size, change time). */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  for await (const name of entries(dir)) {
    const stat = await lstat(join(dir, name), { bigint: true }).catch(() => undefined);
    if (stat) seen.set(name, versionOf(stat));
  }
  return seen;
}

/**
 * The regular files at the top level of `dir` that are new or changed since `before`, by name, within the
 * limits; every entry left out is named with the reason.
 */
export async function collectFiles(
  dir: string,
  before: Map<string, string>,
  limits: SandboxCollectLimits,
): Promise<SandboxOutputFiles> {
  const skipped = new SkippedList();
  const candidates: string[] = [];
  let scanned = 0;
  for await (const name of entries(dir)) {
    scanned++;
    const stat = await lstat(join(dir, name), { bigint: true }).catch(() => undefined);
    if (!stat || before.get(name) === versionOf(stat)) continue;
    if (!isPlainName(name)) skipped.add(`${JSON.stringify(name)}: the name has control or invalid characters`);
    else if (stat.isSymbolicLink()) skipped.add(`${name}: a symbolic link (only regular files are returned)`);
    else if (!stat.isFile()) skipped.add(`${name}: not a regular file (only regular files are returned)`);
    else candidates.push(name);
  }
  if (scanned >= MAX_ENTRIES_SCANNED) {
    skipped.add(`the files directory holds ${MAX_ENTRIES_SCANNED} entries or more: only that many were looked at`);
  }
  candidates.sort();
  const files: SandboxFile[] = [];
  let total = 0;
  for (const name of candidates) {
    if (files.length >= limits.maxFiles) {
      skipped.add(`${name}: more than ${limits.maxFiles} files were written`);
      continue;
    }
    const content = await readRegular(join(dir, name), limits.maxFileBytes);
    if (content === 'not_regular') skipped.add(`${name}: not a regular file (only regular files are returned)`);
    else if (content === 'too_large') skipped.add(`${name}: larger than ${limits.maxFileBytes} bytes`);
    else if (total + content.length > limits.maxTotalBytes)
      skipped.add(`${name}: the files returned would exceed ${limits.maxTotalBytes} bytes in all`);
    else {
      total += content.length;
      files.push({ name, content });
    }
  }
  return { files, skipped: skipped.lines() };
}

/**
 * Gives every entry under `root` (and `root` itself) to `owner`, without following links: a session's next run
 * may hold another slot, whose user must be able to read and change what the earlier runs wrote.
 */
export async function handOver(root: string, owner: { uid: number; gid: number }): Promise<void> {
  await lchown(root, owner.uid, owner.gid);
  const pending = [root];
  let count = 0;
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for await (const entry of await opendir(dir)) {
      if (++count > MAX_ENTRIES_SCANNED * 5) {
        throw new Error(`The sandbox holds more than ${MAX_ENTRIES_SCANNED * 5} files; it cannot be used further`);
      }
      const path = join(dir, entry.name);
      await lchown(path, owner.uid, owner.gid);
      // A Dirent reports a link as a link: a directory reached here is a real one inside `root`.
      if (entry.isDirectory()) pending.push(path);
    }
  }
}

/** The names at the top level of `dir`, at most MAX_ENTRIES_SCANNED of them. */
async function* entries(dir: string): AsyncGenerator<string> {
  let count = 0;
  for await (const entry of await opendir(dir)) {
    yield entry.name;
    if (++count >= MAX_ENTRIES_SCANNED) return;
  }
}

async function readRegular(path: string, maxBytes: number): Promise<Buffer | 'not_regular' | 'too_large'> {
  const handle = await open(path, OPEN_READ).catch(() => undefined);
  if (!handle) return 'not_regular';
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return 'not_regular';
    if (stat.size > maxBytes) return 'too_large';
    const content = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(content, 0, stat.size, 0);
    return content.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function versionOf(stat: { ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint }): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/** The reasons entries were left out: the first few in full, the rest counted. */
class SkippedList {
  private readonly kept: string[] = [];
  private more = 0;

  add(line: string): void {
    if (this.kept.length < MAX_SKIPPED_LINES) this.kept.push(line);
    else this.more++;
  }

  lines(): string[] {
    return this.more > 0 ? [...this.kept, `... and ${this.more} more entries left out`] : this.kept;
  }
}

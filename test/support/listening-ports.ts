import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The TCP ports a process listens on (Linux): its socket inodes from /proc/<pid>/fd matched against the
 * LISTEN rows (state 0A) of /proc/net/tcp and tcp6.
 */
export function listeningTcpPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match) inodes.add(match[1]);
    } catch {
      // Closed between the listing and the read.
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== '0A' || !inodes.has(fields[9])) continue;
      ports.add(parseInt(fields[1].split(':')[1], 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

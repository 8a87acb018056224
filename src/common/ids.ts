import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Random bytes drawn from the system's CSPRNG 4 KiB at a time, as Node's own randomUUID does: a call path makes
 * several ids, and one system call per id cost more than the rest of the id. Each byte is used once.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++];
}

/** Random base62 text; 24 characters carry about 143 bits. */
export function randomToken(length = 24): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    // 248 is the largest multiple of 62 below 256: rejecting the rest keeps every character equally likely.
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export type IdPrefix =
  | 'tool_'
  | 'bundle_'
  | 'audit_'
  | 'mcpsrc_'
  | 'vs_'
  | 'file-'
  | 'vsfb_'
  | 'call_'
  | 'pol_'
  | 'key_'
  | 'review_'
  // Responses and their items (/v1/responses), as OpenAI prefixes them.
  | 'resp_'
  | 'msg_'
  | 'fc_'
  | 'fco_'
  | 'fs_'
  | 'ws_'
  | 'ci_'
  | 'cntr_'
  | 'mcp_';

export function newId(prefix: IdPrefix): string {
  return prefix + randomToken(24);
}

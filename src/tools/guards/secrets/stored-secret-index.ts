import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** Secrets shorter than this are not indexed: too short to tell from ordinary text. */
export const WINDOW = 12;
/** Bits of the hash that index the prefilter: one byte per slot, 64 KiB. */
const FILTER_BITS = 16;

export interface StoredSecret {
  /** What the secret is, as the finding names it: `credential:github_token`, `source_secret:SLACK_TOKEN`. */
  name: string;
  value: string;
}

interface Entry {
  name: string;
  length: number;
  digest: Buffer;
}

/** Map keys stay small integers (V8 Smis): 30 bits of the hash. */
function keyOf(hash: number): number {
  return hash & 0x3fffffff;
}

export interface StoredSecretMatch {
  name: string;
  start: number;
  end: number;
}

/**
 * Finds stored secrets inside arbitrary text without keeping any of them in memory: the table holds, per
 * secret, a keyed rolling hash of its first WINDOW characters (polynomial modulo 2^32 with an odd base drawn
 * at random per index) and an HMAC of the whole value under a random per-index key. A scan rolls the hash
 * over every window of the text (32-bit integer multiply-adds, a byte-array prefilter before the map) and
 * computes an HMAC only where a window's hash is in the table, so it is linear in the text whatever the
 * number of secrets.
 */
export class StoredSecretIndex {
  private readonly hmacKey = randomBytes(32);
  private readonly base = randomInt(1 << 16, 1 << 30) | 1;
  private readonly topPower: number;
  private readonly byPrefix = new Map<number, Entry[]>();
  private readonly filter = new Uint8Array(1 << FILTER_BITS);

  /** @param kind what a match is reported as: `stored_credential`, or `chained_leak` for values of a chain. */
  constructor(
    readonly kind: string,
    secrets: StoredSecret[] = [],
  ) {
    let power = 1;
    for (let i = 1; i < WINDOW; i++) power = Math.imul(power, this.base);
    this.topPower = power;
    for (const secret of secrets) this.add(secret);
  }

  /** Indexes one more secret (ignored when shorter than WINDOW). */
  add({ name, value }: StoredSecret): void {
    if (value.length < WINDOW) return;
    const prefix = this.hashOf(value, 0);
    const entries = this.byPrefix.get(keyOf(prefix)) ?? [];
    entries.push({ name, length: value.length, digest: this.digest(value) });
    this.byPrefix.set(keyOf(prefix), entries);
    this.filter[prefix & ((1 << FILTER_BITS) - 1)] = 1;
  }

  get size(): number {
    let count = 0;
    for (const entries of this.byPrefix.values()) count += entries.length;
    return count;
  }

  /** Every stored secret found in `text`, left to right, without overlaps. */
  find(text: string): StoredSecretMatch[] {
    const matches: StoredSecretMatch[] = [];
    if (this.byPrefix.size === 0 || text.length < WINDOW) return matches;
    // Locals, so the loop over every character stays a tight integer loop.
    const { filter, base, topPower } = this;
    const mask = (1 << FILTER_BITS) - 1;
    let hash = this.hashOf(text, 0);
    let start = 0;
    while (true) {
      if (filter[hash & mask] === 1) {
        const entries = this.byPrefix.get(keyOf(hash));
        const found = entries && this.verified(text, start, entries);
        if (found) {
          matches.push({ name: found.name, start, end: start + found.length });
          // Skip past the secret and start a fresh window there.
          start += found.length;
          if (start + WINDOW > text.length) break;
          hash = this.hashOf(text, start);
          continue;
        }
      }
      if (start + WINDOW >= text.length) break;
      const without = (hash - Math.imul(text.charCodeAt(start), topPower)) | 0;
      hash = (Math.imul(without, base) + text.charCodeAt(start + WINDOW)) | 0;
      start += 1;
    }
    return matches;
  }

  private verified(text: string, start: number, entries: Entry[]): Entry | undefined {
    for (const entry of entries) {
      if (start + entry.length > text.length) continue;
      const digest = this.digest(text.slice(start, start + entry.length));
      if (timingSafeEqual(digest, entry.digest)) return entry;
    }
    return undefined;
  }

  /** Arithmetic modulo 2^32 in int32 (Math.imul, `| 0`): no floating point, no allocation. */
  private hashOf(text: string, from: number): number {
    let hash = 0;
    for (let i = from; i < from + WINDOW; i++) hash = (Math.imul(hash, this.base) + text.charCodeAt(i)) | 0;
    return hash;
  }

  private digest(value: string): Buffer {
    return createHmac('sha256', this.hmacKey).update(value).digest();
  }
}

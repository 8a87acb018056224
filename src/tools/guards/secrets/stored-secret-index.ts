import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** Secrets shorter than this are not indexed: too short to tell from ordinary text. */
export const WINDOW = 12;
/** 2^31 - 1, a Mersenne prime: products of a hash and the base stay exact in a double. */
const MODULUS = 2_147_483_647;

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

export interface StoredSecretMatch {
  name: string;
  start: number;
  end: number;
}

/**
 * Finds stored secrets inside arbitrary text without keeping any of them in memory: the table holds, per
 * secret, a keyed rolling hash of its first WINDOW characters (31 bits, base drawn at random per index) and
 * an HMAC of the whole value under a random per-index key. A scan rolls the hash over every window of the
 * text (one multiply-add per character) and computes an HMAC only where a window's hash is in the table,
 * so it is linear in the text whatever the number of secrets.
 */
export class StoredSecretIndex {
  private readonly hmacKey = randomBytes(32);
  private readonly base = randomInt(256, 1 << 20);
  private readonly topPower: number;
  private readonly byPrefix = new Map<number, Entry[]>();

  /** @param kind what a match is reported as: `stored_credential`, or `chained_leak` for values of a chain. */
  constructor(
    readonly kind: string,
    secrets: StoredSecret[] = [],
  ) {
    let power = 1;
    for (let i = 1; i < WINDOW; i++) power = (power * this.base) % MODULUS;
    this.topPower = power;
    for (const secret of secrets) this.add(secret);
  }

  /** Indexes one more secret (ignored when shorter than WINDOW). */
  add({ name, value }: StoredSecret): void {
    if (value.length < WINDOW) return;
    const prefix = this.hashOf(value, 0);
    const entries = this.byPrefix.get(prefix) ?? [];
    entries.push({ name, length: value.length, digest: this.digest(value) });
    this.byPrefix.set(prefix, entries);
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
    let hash = this.hashOf(text, 0);
    for (let start = 0; ; start++) {
      const entries = this.byPrefix.get(hash);
      const found = entries && this.verified(text, start, entries);
      if (found) {
        matches.push({ name: found.name, start, end: start + found.length });
        // Skip past the secret and start a fresh window there.
        start += found.length;
        if (start + WINDOW > text.length) break;
        hash = this.hashOf(text, start);
        start -= 1;
        continue;
      }
      if (start + WINDOW >= text.length) break;
      hash = this.roll(hash, text.charCodeAt(start), text.charCodeAt(start + WINDOW));
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

  private hashOf(text: string, from: number): number {
    let hash = 0;
    for (let i = from; i < from + WINDOW; i++) hash = (hash * this.base + text.charCodeAt(i)) % MODULUS;
    return hash;
  }

  private roll(hash: number, outgoing: number, incoming: number): number {
    const without = (hash - ((outgoing * this.topPower) % MODULUS) + MODULUS) % MODULUS;
    return (without * this.base + incoming) % MODULUS;
  }

  private digest(value: string): Buffer {
    return createHmac('sha256', this.hmacKey).update(value).digest();
  }
}

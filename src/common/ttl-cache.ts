/**
 * The in-memory cache of the service: entries live at most `ttlMs` (Infinity: until pushed out), past
 * `maxEntries` the least recently used one goes, and `clear()` drops everything at once (owners call it
 * when a change notification says their entries are outdated). A ttl of 0 disables it. `now` is the
 * time source in milliseconds; owners pass their Clock's so tests can move time.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry); // most recently used goes last
    return entry.value;
  }

  set(key: K, value: V): void {
    if (!this.enabled) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value as K);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Something the calls of one run share, given back when the run ends. */
export interface ScopedResource {
  release(): Promise<void>;
}

/**
 * What the calls of one run (a /v1/responses run) share: each resource is opened by the first call that asks
 * for it and released once, when the run ends however it ends (completed, failed, cancelled, the client gone).
 * A call made outside a run has no scope and opens whatever it needs for itself.
 */
export class CallScope {
  private readonly resources = new Map<string, Promise<ScopedResource>>();
  private ended = false;

  /** The resource under `key`, opened now if no call of this run opened it yet; refused once the run ended. */
  share<T extends ScopedResource>(key: string, open: () => T | Promise<T>): Promise<T> {
    if (this.ended) return Promise.reject(new Error('The run this call belongs to has ended'));
    let resource = this.resources.get(key);
    if (!resource) {
      resource = Promise.resolve().then(open);
      this.resources.set(key, resource);
    }
    return resource as Promise<T>;
  }

  /** Releases every resource (also those still opening); calls asking afterwards are refused. */
  async release(): Promise<void> {
    this.ended = true;
    const resources = [...this.resources.values()];
    this.resources.clear();
    await Promise.allSettled(resources.map(async (resource) => (await resource).release()));
  }
}

/**
 * At most `size` sandbox runs at once, each holding a numbered slot while it runs. The number gives a run
 * its own user id (local runtime), so that one run's processes never count against another's limit.
 */
export class SandboxSlots {
  private readonly free: number[];
  private readonly waiting: ((slot: number) => void)[] = [];

  constructor(size: number) {
    this.free = Array.from({ length: size }, (_, slot) => slot);
  }

  /**
   * Runs `work` in a free slot, `preferred` when that one is free: a session's next run then keeps the user
   * its files belong to, and nothing has to be handed over to another.
   */
  async run<T>(work: (slot: number) => Promise<T>, preferred?: number): Promise<T> {
    const slot = this.take(preferred) ?? (await new Promise<number>((resolve) => this.waiting.push(resolve)));
    try {
      return await work(slot);
    } finally {
      const next = this.waiting.shift();
      if (next) next(slot);
      else this.free.push(slot);
    }
  }

  private take(preferred: number | undefined): number | undefined {
    const at = preferred === undefined ? -1 : this.free.indexOf(preferred);
    return at >= 0 ? this.free.splice(at, 1)[0] : this.free.pop();
  }
}

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

  async run<T>(work: (slot: number) => Promise<T>): Promise<T> {
    const slot = this.free.pop() ?? (await new Promise<number>((resolve) => this.waiting.push(resolve)));
    try {
      return await work(slot);
    } finally {
      const next = this.waiting.shift();
      if (next) next(slot);
      else this.free.push(slot);
    }
  }
}

/**
 * A counting semaphore with FIFO waiters: at most N LLM sessions at once, across projects.
 *
 * @module
 */

/** Limits concurrent holders; waiters are served in arrival order. */
export class Semaphore {
  #free: number;
  #waiters: (() => void)[] = [];
  #max: number;

  /** Creates a semaphore with `max` slots. */
  constructor(max: number) {
    this.#max = Math.max(1, max);
    this.#free = this.#max;
  }

  /** Runs `fn` while holding a slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free > 0) {
      this.#free--;
    } else {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    try {
      return await fn();
    } finally {
      const next = this.#waiters.shift();
      if (next) next();
      else this.#free++;
    }
  }

  /** Slots in use now. */
  get inUse(): number {
    return this.#max - this.#free;
  }
}

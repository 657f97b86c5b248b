/**
 * A bounded set of recently seen event ids: the cheap first line of deduplication (the
 * database's idempotent insert is the second, and the one that is always right).
 *
 * @module
 */

/** Insertion-ordered set that forgets the oldest id past its capacity. */
export class RecentIds {
  #ids = new Set<string>();
  #capacity: number;

  /** Creates a set holding at most `capacity` ids. */
  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  /** Adds `id`; returns false when it was already present. */
  add(id: string): boolean {
    if (this.#ids.has(id)) return false;
    this.#ids.add(id);
    if (this.#ids.size > this.#capacity) {
      this.#ids.delete(this.#ids.values().next().value as string);
    }
    return true;
  }

  /** Forgets `id` (its ingest failed, so a retry must not look like a duplicate). */
  delete(id: string): void {
    this.#ids.delete(id);
  }

  /** Number of ids held. */
  get size(): number {
    return this.#ids.size;
  }
}

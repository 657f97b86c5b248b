/**
 * The vector index's record ids by slot, packed: UTF-8 bytes at a fixed width per slot plus an
 * open-addressing hash table from id to slot, all in typed arrays. 100k ids as strings in an
 * array and two Maps held ~10 MB of V8 heap that stayed, uncollected, after the vectors were
 * unloaded (an idle collector runs no collection); packed they take ~5 MB that
 * {@linkcode IdTable.release} frees at once.
 *
 * @module
 */
import { freeNow } from "@kiro-learn/core/storage";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Bytes per id to start with (`mr_` + a 26-character ULID is 29). */
const INITIAL_WIDTH = 32;

/** Record ids by slot (0..count-1), with id → slot lookups. */
export class IdTable {
  #width = INITIAL_WIDTH;
  #bytes: Uint8Array<ArrayBuffer>;
  #lengths: Uint16Array<ArrayBuffer>;
  /** Slot + 1 per entry, 0 when empty; linear probing. */
  #table: Int32Array<ArrayBuffer>;
  #count = 0;
  #scratch = new Uint8Array(INITIAL_WIDTH * 4);

  /** An empty table with room for `capacity` ids before it grows. */
  constructor(capacity: number) {
    this.#bytes = new Uint8Array(capacity * this.#width);
    this.#lengths = new Uint16Array(capacity);
    this.#table = new Int32Array(tableSize(capacity));
  }

  /** Ids held. */
  get count(): number {
    return this.#count;
  }

  /** Room, in ids, before the arrays grow. */
  get capacity(): number {
    return this.#lengths.length;
  }

  /** The id in `slot`. */
  idAt(slot: number): string {
    const start = slot * this.#width;
    return decoder.decode(this.#bytes.subarray(start, start + this.#lengths[slot]));
  }

  /** The slot of `id`, or -1. */
  slotOf(id: string): number {
    const n = this.#encode(id);
    if (n > this.#width) return -1;
    const mask = this.#table.length - 1;
    for (let i = hash(this.#scratch, 0, n) & mask;; i = (i + 1) & mask) {
      const entry = this.#table[i];
      if (entry === 0) return -1;
      if (this.#equals(entry - 1, n)) return entry - 1;
    }
  }

  /** Appends `id` (which must not be held) in slot `count`, and returns that slot. */
  push(id: string): number {
    const n = this.#encode(id);
    if (n > 0xffff) throw new RangeError(`record id of ${n} bytes is too long to index`);
    if (n > this.#width) this.#relayout(this.capacity, Math.ceil(n / 8) * 8);
    if (this.#count === this.capacity) this.#relayout(Math.max(64, this.capacity * 2), this.#width);
    const slot = this.#count++;
    this.#bytes.set(this.#scratch.subarray(0, n), slot * this.#width);
    this.#lengths[slot] = n;
    this.#insert(slot);
    return slot;
  }

  /** Removes the id in `slot`; the last id moves into it (as the vectors do). */
  removeSwap(slot: number): void {
    const last = this.#count - 1;
    this.#deleteAt(this.#find(slot));
    if (slot !== last) {
      this.#table[this.#find(last)] = slot + 1;
      const w = this.#width;
      this.#bytes.copyWithin(slot * w, last * w, (last + 1) * w);
      this.#lengths[slot] = this.#lengths[last];
    }
    this.#count--;
  }

  /** Makes room for exactly `capacity` ids (at least `count`). */
  fit(capacity: number): void {
    this.#relayout(Math.max(capacity, this.#count), this.#width);
  }

  /** Frees the memory now; nothing may use the table afterwards. */
  release(): void {
    freeNow(this.#bytes);
    freeNow(this.#lengths);
    freeNow(this.#table);
    this.#count = 0;
  }

  /** UTF-8 of `id` into the scratch buffer; returns its length. */
  #encode(id: string): number {
    if (id.length * 3 > this.#scratch.length) this.#scratch = new Uint8Array(id.length * 3);
    return encoder.encodeInto(id, this.#scratch).written;
  }

  #equals(slot: number, n: number): boolean {
    if (this.#lengths[slot] !== n) return false;
    const base = slot * this.#width;
    for (let i = 0; i < n; i++) if (this.#bytes[base + i] !== this.#scratch[i]) return false;
    return true;
  }

  #home(slot: number): number {
    return hash(this.#bytes, slot * this.#width, this.#lengths[slot]) & (this.#table.length - 1);
  }

  #insert(slot: number): void {
    const mask = this.#table.length - 1;
    let i = this.#home(slot);
    while (this.#table[i] !== 0) i = (i + 1) & mask;
    this.#table[i] = slot + 1;
  }

  /** The table index holding `slot`. */
  #find(slot: number): number {
    const mask = this.#table.length - 1;
    let i = this.#home(slot);
    while (this.#table[i] !== slot + 1) i = (i + 1) & mask;
    return i;
  }

  /** Empties table index `i`, shifting back the entries of its probe run (no tombstones). */
  #deleteAt(i: number): void {
    const table = this.#table;
    const mask = table.length - 1;
    let hole = i;
    for (let j = (i + 1) & mask; table[j] !== 0; j = (j + 1) & mask) {
      const home = this.#home(table[j] - 1);
      // The entry at j may fill the hole when its home is not cyclically in (hole, j].
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!between) {
        table[hole] = table[j];
        hole = j;
      }
    }
    table[hole] = 0;
  }

  #relayout(capacity: number, width: number): void {
    const bytes = new Uint8Array(capacity * width);
    const count = this.#count;
    for (let slot = 0; slot < count; slot++) {
      const from = slot * this.#width;
      bytes.set(this.#bytes.subarray(from, from + this.#lengths[slot]), slot * width);
    }
    const lengths = new Uint16Array(capacity);
    lengths.set(this.#lengths.subarray(0, count));
    freeNow(this.#bytes);
    freeNow(this.#lengths);
    freeNow(this.#table);
    this.#bytes = bytes;
    this.#lengths = lengths;
    this.#width = width;
    this.#table = new Int32Array(tableSize(capacity));
    for (let slot = 0; slot < count; slot++) this.#insert(slot);
  }
}

/** A power of two at least twice `capacity` (probe runs stay short at half full at most). */
function tableSize(capacity: number): number {
  let size = 16;
  while (size < capacity * 2) size *= 2;
  return size;
}

/** FNV-1a over `n` bytes of `bytes` from `start`. */
function hash(bytes: Uint8Array, start: number, n: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < start + n; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

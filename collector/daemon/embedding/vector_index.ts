/**
 * The in-memory vector index: one flat array per namespace (float32 vectors, int8 codes with a
 * scale per vector, or one sign bit per dimension), searched by brute force.
 *
 * - Loaded lazily, per namespace, from storage (`listEmbeddings(namespace, {model})`), exact
 *   namespace match, so one project's vectors never answer another's query.
 * - Updated incrementally: an upsert writes one slot (the array grows by doubling), a delete
 *   moves the last vector into the freed slot. No write rebuilds anything (the old design
 *   re-read the whole namespace after every write).
 * - Writes that arrive while a namespace is loading are replayed on top of the loaded snapshot,
 *   so a load can never resurrect a deleted vector or lose a new one. Callers store an
 *   embedding before upserting it, so a load that starts later sees it in storage.
 * - Bound to one model: a different model id drops every namespace, which then reloads lazily
 *   with that model's embeddings (records without one are the backfill's job).
 * - Vectors are L2-normalised on the way in, so similarity is a dot product. Ties rank by
 *   `record_id`, so results are deterministic.
 * - `precision: "bits"` (what the collector uses) holds {@linkcode SignCodes}: one sign bit per
 *   dimension of the vector centred on its namespace's mean and rotated, and one factor, 68 B per
 *   512-d vector (100k: 7.3 MiB with the spare room, int8 took 55). A search estimates every
 *   record's similarity from its codes, reads the stored float32 vectors of the best
 *   {@linkcode SHORTLIST_MIN}–{@linkcode SHORTLIST_MAX} back from storage by record id
 *   ({@linkcode VectorSource.getEmbeddings}, one indexed query; about 8 µs a row at 100k records in a one-off
 *   timing, which no benchmark prints)
 *   and ranks those exactly: similarities, floor, ties and collapsing are float32's, and the
 *   only approximation is which records reach the shortlist. On the development set (8,481
 *   records, 1,519 queries, `vector_code_experiment.ts`, whose code is in commit 1d1f6bf) it
 *   returned exactly float32's top 10 for every query (int8: 99.57% of it), so the same
 *   `mode=vector` recall@5 and MRR@10 (0.121 / 0.089), the same hybrid vector side (k 40, collapsed) for every query, and the same
 *   reconciliation neighbours (≥ 0.8, k 10) for all 2,121 records tried (int8: 97.4%).
 *   The idle collector's RSS with 100k records held: `deno task bench memory` (figures in
 *   docs/benchmarks.md).
 * - `precision: "int8"` holds each vector as 8-bit codes times one float scale (its largest
 *   component / 127): a quarter of float32's memory; similarities are those of the decoded
 *   vectors. Storage keeps float32, so nothing on disk changes whatever the precision.
 * - Namespaces load page by page when the source can ({@linkcode VectorSource.listEmbeddingPage}),
 *   so a load never holds every stored blob and its float32 copy at once (807 MiB RSS loading
 *   100k float32 vectors in one listing, ~435 MiB int8 page by page). Each page's blobs and
 *   vectors are freed as soon as they are held (`freeNow`), and record ids are packed in typed
 *   arrays ({@linkcode IdTable}), so nothing of a load waits for a garbage collection an idle
 *   collector never runs.
 *
 * Search at 100k records in one namespace: see `deno task bench hybrid` (the `search` column);
 * the bits scan is one table lookup per byte of codes, about a quarter of int8's dot products.
 *
 * @module
 */
import { dotAt, l2NormalizeInPlace, unitOrZero } from "@kiro-learn/core/search";
import { type EmbeddingPage, freeNow } from "@kiro-learn/core/storage";
import { IdTable } from "./_id_table.ts";

/** One search hit. */
export interface VectorHit {
  /** The record. */
  record_id: string;
  /** Cosine similarity to the query, in [-1, 1]. */
  similarity: number;
}

/** Where namespaces are loaded from (the storage's `listEmbeddings`). */
export interface VectorSource {
  /** Records of `namespace` with an embedding from `model`. */
  listEmbeddings(
    namespace: string,
    options: { model: string },
  ): Promise<{ record_id: string; vector: Float32Array }[]>;
  /**
   * The same rows, one page of at most `limit`: first `after: 0`, then the previous page's
   * `next` until that is null. Used instead of `listEmbeddings` when present. The returned
   * vectors are the index's: it normalises them in place and frees each once it holds it.
   */
  listEmbeddingPage?(
    namespace: string,
    options: { model: string; after: number; limit: number },
  ): Promise<EmbeddingPage>;
  /**
   * The stored vectors of those of `recordIds` that are in `namespace` with an embedding from
   * `model`, in any order. Required by the `bits` precision, which rescores its shortlist with
   * them; the returned vectors are the index's to free.
   */
  getEmbeddings?(
    namespace: string,
    options: { model: string; recordIds: readonly string[] },
  ): Promise<{ record_id: string; vector: Float32Array }[]>;
}

/**
 * How the index holds vectors: float32 as given, 8-bit codes with one scale per vector, or
 * `bits`: one sign bit per (rotated, centred) dimension, searched approximately and the
 * shortlist rescored with the stored vectors ({@linkcode VectorSource.getEmbeddings}).
 */
export type VectorPrecision = "float32" | "int8" | "bits";

/** The precision the collector's index holds vectors at (what its benchmark must time). */
export const COLLECTOR_VECTOR_PRECISION: VectorPrecision = "bits";

/**
 * `bits`: candidates rescored exactly per hit wanted (the `k` hits, or the collapsing pool),
 * within {@linkcode SHORTLIST_MIN} and {@linkcode SHORTLIST_MAX}. With these, on the
 * development set (≈4,200 records per namespace, real use-lite vectors) the shortlist held every
 * query's exact top 10 and every hybrid vector side's exact top 40
 * (`vector_code_experiment.ts`, in commit 1d1f6bf). The codes' estimate errs by about the
 * same amount whatever the namespace's size, so a larger one needs a deeper shortlist only as
 * far as more records crowd near the top 10's similarity: kept generous for that.
 */
export const SHORTLIST_FACTOR = 25;

/** Fewest candidates the `bits` index rescores (a namespace this small is rescored whole). */
export const SHORTLIST_MIN = 500;

/**
 * Most candidates the `bits` index rescores: each costs one stored-vector read (about 8 µs at
 * 100k records, timed once), so the collapsing pool of a hybrid search (160) is not rescored 25 times over.
 */
export const SHORTLIST_MAX = 1_000;

/** Rows per page when the source pages (256 left ~25 MiB less behind than 2,048 at 100k). */
export const LOAD_PAGE = 256;

/** Options for {@linkcode VectorIndex.search}. */
export interface SearchOptions {
  /** Most hits to return. */
  k: number;
  /** Hits below this similarity are dropped (the relevance floor); default -1 (none). */
  minSimilarity?: number;
  /**
   * Near-duplicate collapsing: a hit whose similarity to a better hit already kept is at least
   * this is skipped, so a cluster of near-identical records takes one place instead of all `k`.
   * The candidates considered are the best `k ×` {@linkcode COLLAPSE_POOL} above the floor, so
   * fewer than `k` hits may come back. Default: none (every hit counts).
   */
  collapseAbove?: number;
}

/** How many candidates per requested hit near-duplicate collapsing looks at. */
export const COLLAPSE_POOL = 4;

/** Vectors by slot, in one of the two precisions. */
interface Slots {
  /** Room, in vectors. */
  readonly capacity: number;
  /** Bytes held. */
  readonly bytes: number;
  /** Writes a unit vector into `slot`. */
  write(slot: number, unit: Float32Array): void;
  /** Dot product of `slot`'s vector with `q`. */
  dot(slot: number, q: Float32Array): number;
  /** Dot product of two slots' vectors. */
  dotSlots(a: number, b: number): number;
  /** A float32 copy of `slot`'s vector. */
  read(slot: number): Float32Array;
  /** Copies `from`'s vector over `to`'s. */
  move(from: number, to: number): void;
  /**
   * The first `capacity` vectors (all when it is larger), with room for `capacity`; this one is
   * released (an old buffer of tens of MB would otherwise wait for a collection).
   */
  resized(capacity: number): Slots;
  /**
   * Frees the memory now (the buffers are detached; nothing may read these slots again): an
   * idle collector runs no garbage collection that would free tens of MB of dropped vectors.
   */
  release(): void;
}

class Float32Slots implements Slots {
  #dim: number;
  #data: Float32Array<ArrayBuffer>;
  constructor(dim: number, capacity: number) {
    this.#dim = dim;
    this.#data = new Float32Array(capacity * dim);
  }
  get capacity(): number {
    return this.#dim === 0 ? Infinity : this.#data.length / this.#dim;
  }
  get bytes(): number {
    return this.#data.byteLength;
  }
  write(slot: number, unit: Float32Array): void {
    this.#data.set(unit, slot * this.#dim);
  }
  dot(slot: number, q: Float32Array): number {
    return dotAt(this.#data, slot * this.#dim, q);
  }
  dotSlots(a: number, b: number): number {
    const dim = this.#dim;
    return dotAt(this.#data, a * dim, this.#data.subarray(b * dim, (b + 1) * dim));
  }
  read(slot: number): Float32Array {
    return this.#data.slice(slot * this.#dim, (slot + 1) * this.#dim);
  }
  move(from: number, to: number): void {
    const dim = this.#dim;
    this.#data.copyWithin(to * dim, from * dim, (from + 1) * dim);
  }
  resized(capacity: number): Slots {
    const next = new Float32Slots(this.#dim, capacity);
    next.#data.set(this.#data.subarray(0, next.#data.length));
    this.release();
    return next;
  }
  release(): void {
    freeNow(this.#data);
  }
}

/** Largest code: codes are symmetric, so -127..127 (never -128). */
const INT8_MAX = 127;

class Int8Slots implements Slots {
  #dim: number;
  #codes: Int8Array<ArrayBuffer>;
  #scales: Float32Array<ArrayBuffer>;
  constructor(dim: number, capacity: number) {
    this.#dim = dim;
    this.#codes = new Int8Array(capacity * dim);
    this.#scales = new Float32Array(capacity);
  }
  get capacity(): number {
    return this.#scales.length;
  }
  get bytes(): number {
    return this.#codes.byteLength + this.#scales.byteLength;
  }
  write(slot: number, unit: Float32Array): void {
    let max = 0;
    for (let d = 0; d < unit.length; d++) max = Math.max(max, Math.abs(unit[d]));
    const scale = max / INT8_MAX;
    const base = slot * this.#dim;
    for (let d = 0; d < unit.length; d++) {
      this.#codes[base + d] = scale > 0 ? Math.round(unit[d] / scale) : 0;
    }
    this.#scales[slot] = scale;
  }
  dot(slot: number, q: Float32Array): number {
    return dotAt(this.#codes, slot * this.#dim, q) * this.#scales[slot];
  }
  dotSlots(a: number, b: number): number {
    const codes = this.#codes;
    const dim = this.#dim;
    let sum = 0;
    for (let d = 0; d < dim; d++) sum += codes[a * dim + d] * codes[b * dim + d];
    return sum * this.#scales[a] * this.#scales[b];
  }
  read(slot: number): Float32Array {
    const out = new Float32Array(this.#dim);
    const scale = this.#scales[slot];
    for (let d = 0; d < this.#dim; d++) out[d] = this.#codes[slot * this.#dim + d] * scale;
    return out;
  }
  move(from: number, to: number): void {
    const dim = this.#dim;
    this.#codes.copyWithin(to * dim, from * dim, (from + 1) * dim);
    this.#scales[to] = this.#scales[from];
  }
  resized(capacity: number): Slots {
    const next = new Int8Slots(this.#dim, capacity);
    next.#codes.set(this.#codes.subarray(0, next.#codes.length));
    next.#scales.set(this.#scales.subarray(0, capacity));
    this.release();
    return next;
  }
  release(): void {
    freeNow(this.#codes);
    freeNow(this.#scales);
  }
}

/**
 * One sign bit per dimension and one factor per vector: `bits` (64 B + 4 B per 512-d vector, an
 * eighth of int8). The vector is centred on its namespace's mean (taken from the first page a
 * load reads: embeddings share a large common component that would otherwise set most bits the
 * same way for every record) and rotated by a fixed randomised Hadamard transform (spreads each
 * dimension's variance over all bits), and the sign of each rotated dimension is kept. The
 * similarity estimate is the query's rotated vector summed with those signs, times
 * `|c|² / |c|₁` of the centred vector `c` (RaBitQ's estimator of `q · c`), computed through a
 * per-query table of 256 partial sums per byte of codes. It only ranks candidates: the index
 * rescores its best ones with the stored vectors.
 */
export class SignCodes {
  #dim: number;
  /** Rotated length: the next power of two (at least 8, so codes are whole bytes). */
  #padded: number;
  #bytesPer: number;
  #codes: Uint8Array<ArrayBuffer>;
  #factors: Float32Array<ArrayBuffer>;
  #mean: Float32Array<ArrayBuffer>;
  #centered = false;
  // One buffer for every write: a 100k load would otherwise leave 100k short-lived arrays.
  #scratch: Float32Array<ArrayBuffer> | null = null;

  /** Room for `capacity` vectors of `dim` dimensions; centred on zero until {@linkcode center}. */
  constructor(dim: number, capacity: number, mean?: Float32Array<ArrayBuffer>) {
    this.#dim = dim;
    let padded = 8;
    while (padded < dim) padded *= 2;
    this.#padded = padded;
    this.#bytesPer = padded / 8;
    this.#codes = new Uint8Array(capacity * this.#bytesPer);
    this.#factors = new Float32Array(capacity);
    this.#mean = mean ?? new Float32Array(dim);
    this.#centered = mean !== undefined;
  }

  /** Room, in vectors. */
  get capacity(): number {
    return this.#factors.length;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#codes.byteLength + this.#factors.byteLength + this.#mean.byteLength;
  }

  /** True once {@linkcode center} has set the mean (it is set once, before the first write). */
  get centered(): boolean {
    return this.#centered;
  }

  /** Sets the mean the codes are centred on to that of `sample` (unit vectors). */
  center(sample: readonly Float32Array[]): void {
    if (sample.length === 0) return;
    const mean = this.#mean;
    for (const unit of sample) for (let d = 0; d < this.#dim; d++) mean[d] += unit[d];
    for (let d = 0; d < this.#dim; d++) mean[d] /= sample.length;
    this.#centered = true;
  }

  /** Writes the codes of a unit vector into `slot`. */
  write(slot: number, unit: Float32Array): void {
    const r = this.#scratch ??= new Float32Array(this.#padded);
    for (let d = 0; d < this.#dim; d++) r[d] = unit[d] - this.#mean[d];
    r.fill(0, this.#dim);
    rotate(r);
    let l1 = 0;
    let l2 = 0;
    const base = slot * this.#bytesPer;
    for (let j = 0; j < this.#bytesPer; j++) {
      let byte = 0;
      for (let t = 0; t < 8; t++) {
        const x = r[j * 8 + t];
        if (x > 0) byte |= 1 << t;
        l1 += Math.abs(x);
        l2 += x * x;
      }
      this.#codes[base + j] = byte;
    }
    this.#factors[slot] = l1 > 0 ? l2 / l1 : 0;
  }

  /** Copies `from`'s codes over `to`'s. */
  move(from: number, to: number): void {
    const n = this.#bytesPer;
    this.#codes.copyWithin(to * n, from * n, (from + 1) * n);
    this.#factors[to] = this.#factors[from];
  }

  /**
   * The slots (of the first `count`) with the `size` highest estimates for the unit query `q`,
   * in no particular order.
   */
  shortlist(q: Float32Array, options: { count: number; size: number }): Int32Array {
    const n = this.#bytesPer;
    const r = new Float32Array(this.#padded);
    r.set(q.subarray(0, this.#dim));
    rotate(r);
    // table[j * 256 + b]: the query's rotated dimensions 8j..8j+7 summed with the signs of b.
    const table = new Float32Array(n * 256);
    for (let j = 0; j < n; j++) {
      let all = 0;
      for (let t = 0; t < 8; t++) all -= r[j * 8 + t];
      table[j * 256] = all;
      for (let b = 1; b < 256; b++) {
        const low = b & -b;
        table[j * 256 + b] = table[j * 256 + (b ^ low)] + 2 * r[j * 8 + 31 - Math.clz32(low)];
      }
    }
    const size = Math.min(options.size, options.count);
    // A min-heap of the best `size` so far: most slots lose to its root and cost one compare.
    const heapScore = new Float64Array(size);
    const heapSlot = new Int32Array(size);
    let filled = 0;
    const codes = this.#codes;
    const factors = this.#factors;
    for (let slot = 0; slot < options.count; slot++) {
      const base = slot * n;
      let sum = 0;
      for (let j = 0; j < n; j++) sum += table[(j << 8) | codes[base + j]];
      const score = sum * factors[slot];
      if (filled < size) {
        let i = filled++;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (heapScore[parent] <= score) break;
          heapScore[i] = heapScore[parent];
          heapSlot[i] = heapSlot[parent];
          i = parent;
        }
        heapScore[i] = score;
        heapSlot[i] = slot;
      } else if (score > heapScore[0]) {
        let i = 0;
        for (;;) {
          const left = 2 * i + 1;
          if (left >= size) break;
          const child = left + 1 < size && heapScore[left + 1] < heapScore[left] ? left + 1 : left;
          if (heapScore[child] >= score) break;
          heapScore[i] = heapScore[child];
          heapSlot[i] = heapSlot[child];
          i = child;
        }
        heapScore[i] = score;
        heapSlot[i] = slot;
      }
    }
    return heapSlot;
  }

  /** The first `capacity` vectors' codes with room for `capacity`; this one is released. */
  resized(capacity: number): SignCodes {
    const next = new SignCodes(this.#dim, capacity, this.#mean.slice());
    next.#centered = this.#centered;
    next.#codes.set(this.#codes.subarray(0, next.#codes.length));
    next.#factors.set(this.#factors.subarray(0, capacity));
    this.release();
    return next;
  }

  /** Frees the memory now (see `Slots.release`). */
  release(): void {
    freeNow(this.#codes);
    freeNow(this.#factors);
    freeNow(this.#mean);
  }
}

/**
 * Rotates `v` (of a power-of-two length) in place by a fixed orthonormal transform: pseudo-random
 * but fixed sign flips (a multiplicative hash of the index), then the fast Walsh–Hadamard
 * transform, scaled by 1/√n.
 */
function rotate(v: Float32Array): void {
  const n = v.length;
  for (let d = 0; d < n; d++) if ((Math.imul(d + 1, 2654435761) >>> 16) & 1) v[d] = -v[d];
  for (let h = 1; h < n; h *= 2) {
    for (let i = 0; i < n; i += h * 2) {
      for (let j = i; j < i + h; j++) {
        const a = v[j];
        const b = v[j + h];
        v[j] = a + b;
        v[j + h] = a - b;
      }
    }
  }
  const scale = 1 / Math.sqrt(n);
  for (let d = 0; d < n; d++) v[d] *= scale;
}

function newSlots(precision: VectorPrecision, dim: number, capacity: number): Slots | SignCodes {
  if (precision === "bits") return new SignCodes(dim, capacity);
  return precision === "int8" ? new Int8Slots(dim, capacity) : new Float32Slots(dim, capacity);
}

interface Shard {
  data: Slots | SignCodes;
  /** Record ids by slot (the same slots as `data`). */
  ids: IdTable;
}

type PendingOp = { op: "upsert"; id: string; vector: Float32Array } | { op: "delete"; id: string };

interface Loading {
  promise: Promise<void>;
  ops: PendingOp[];
}

const INITIAL_CAPACITY = 64;

/** The per-namespace index. */
export class VectorIndex {
  #source: VectorSource;
  #model: string | null;
  #dim: number;
  #precision: VectorPrecision;
  #shards = new Map<string, Shard>();
  #loading = new Map<string, Loading>();
  #usedAt = new Map<string, number>();
  #generation = 0;

  /**
   * Creates an empty index for `model` (null: no model yet, every search is empty), holding
   * vectors at `precision` (default float32).
   */
  constructor(
    source: VectorSource,
    options: { model: string | null; dim: number; precision?: VectorPrecision },
  ) {
    this.#source = source;
    this.#model = options.model;
    this.#dim = options.dim;
    this.#precision = options.precision ?? "float32";
    if (this.#precision === "bits" && !source.getEmbeddings) {
      throw new TypeError(
        "the bits precision rescores with stored vectors: give a source with getEmbeddings",
      );
    }
  }

  /** How vectors are held. */
  get precision(): VectorPrecision {
    return this.#precision;
  }

  /** The model whose vectors this index holds. */
  get model(): string | null {
    return this.#model;
  }

  /** Vector length. */
  get dim(): number {
    return this.#dim;
  }

  /** Switches to another model: everything loaded is dropped and reloads lazily. */
  setModel(model: string | null, dim: number): void {
    if (model === this.#model && dim === this.#dim) return;
    this.#model = model;
    this.#dim = dim;
    this.clear();
  }

  /** Drops every namespace (they reload lazily). */
  clear(): void {
    this.#generation++;
    for (const shard of this.#shards.values()) release(shard);
    this.#shards.clear();
    this.#loading.clear();
    this.#usedAt.clear();
  }

  /**
   * Drops from memory every loaded namespace not loaded or searched in the last `idleMs` (it
   * reloads from storage when next searched), and returns their names. A namespace still
   * loading is kept.
   */
  unloadIdle(idleMs: number, options: { now?: number } = {}): string[] {
    const now = options.now ?? Date.now();
    const dropped: string[] = [];
    for (const [namespace, shard] of this.#shards) {
      if (now - (this.#usedAt.get(namespace) ?? 0) < idleMs) continue;
      this.#shards.delete(namespace);
      release(shard);
      this.#usedAt.delete(namespace);
      dropped.push(namespace);
    }
    return dropped;
  }

  /** True when `namespace` is in memory (a search will not touch storage). */
  isLoaded(namespace: string): boolean {
    return this.#shards.has(namespace);
  }

  /** Loads `namespace` if it is not in memory yet (concurrent callers share one load). */
  load(namespace: string): Promise<void> {
    this.#usedAt.set(namespace, Date.now());
    if (this.#shards.has(namespace) || this.#model === null) return Promise.resolve();
    const existing = this.#loading.get(namespace);
    if (existing) return existing.promise;
    const generation = this.#generation;
    const model = this.#model;
    const loading: Loading = { ops: [], promise: Promise.resolve() };
    loading.promise = (async () => {
      try {
        const shard: Shard = {
          data: newSlots(this.#precision, this.#dim, INITIAL_CAPACITY),
          ids: new IdTable(INITIAL_CAPACITY),
        };
        const add = (rows: { record_id: string; vector: Float32Array }[], own: boolean) => {
          // Stored vectors are normalised already; normalising again is cheap and makes the
          // dot product a cosine whatever wrote them. Pages are the index's own to change:
          // normalising them in place saves a copy per row.
          const units = rows.filter((row) => row.vector.length === this.#dim).map((row) => ({
            id: row.record_id,
            unit: own ? l2NormalizeInPlace(row.vector) : unitOrZero(row.vector),
          }));
          // Sign codes are centred on the mean of the first page read (an even enough sample:
          // row ids follow insertion, not content).
          const data = shard.data;
          if (data instanceof SignCodes && !data.centered) {
            data.center(units.slice(0, LOAD_PAGE).map((u) => u.unit));
          }
          for (const { id, unit } of units) {
            this.#put(shard, id, unit);
            // Its memory goes now, not at a collection after thousands more (see freeNow).
            if (own) freeNow(unit);
          }
        };
        const source = this.#source;
        if (source.listEmbeddingPage) {
          // Page by page: only one page of blobs and float32 copies is alive at a time.
          let after: number | null = 0;
          while (after !== null) {
            const page = await source.listEmbeddingPage(namespace, {
              model,
              after,
              limit: LOAD_PAGE,
            });
            if (generation !== this.#generation) return;
            // Sized once from the first page's count: growing by doubling would leave every
            // smaller buffer behind as garbage the allocator keeps (~60 MiB at 100k × 512).
            if (page.total !== undefined && page.total > shard.data.capacity) {
              shard.data = shard.data.resized(Math.ceil(page.total * 1.125));
              shard.ids.fit(shard.data.capacity);
            }
            add(page.rows, true);
            after = page.next;
          }
        } else {
          const rows = await source.listEmbeddings(namespace, { model });
          // A model switch or clear() during the load makes this snapshot stale.
          if (generation !== this.#generation) return;
          add(rows, false);
        }
        // Doubling while loading leaves up to half the room unused: a loaded namespace mostly
        // reads, so it keeps an eighth spare (100k × 512-d int8: ~59 MB instead of ~68).
        const fit = Math.max(INITIAL_CAPACITY, Math.ceil(shard.ids.count * 1.125));
        if (fit < shard.data.capacity) shard.data = shard.data.resized(fit);
        if (fit < shard.ids.capacity) shard.ids.fit(fit);
        this.#shards.set(namespace, shard);
        for (const op of loading.ops) {
          if (op.op === "upsert") this.#put(shard, op.id, op.vector);
          else this.#remove(shard, op.id);
        }
      } finally {
        if (this.#loading.get(namespace) === loading) this.#loading.delete(namespace);
      }
    })();
    this.#loading.set(namespace, loading);
    return loading.promise;
  }

  /**
   * Inserts or replaces the vector of `recordId` in `namespace`. A namespace that is not in
   * memory is left alone: it will load the stored embedding when first searched.
   */
  upsert(namespace: string, recordId: string, vector: Float32Array): void {
    if (vector.length !== this.#dim) {
      throw new RangeError(
        `vector of ${recordId} has ${vector.length} dimensions, not ${this.#dim}`,
      );
    }
    const unit = unitOrZero(vector);
    for (const [other, old] of this.#shards) {
      if (other !== namespace) this.#remove(old, recordId);
    }
    const shard = this.#shards.get(namespace);
    if (shard) {
      this.#put(shard, recordId, unit);
      return;
    }
    this.#loading.get(namespace)?.ops.push({ op: "upsert", id: recordId, vector: unit });
  }

  /** Removes records wherever they are (their namespace need not be known). */
  delete(recordIds: Iterable<string>): void {
    for (const id of recordIds) {
      for (const shard of this.#shards.values()) this.#remove(shard, id);
      for (const loading of this.#loading.values()) loading.ops.push({ op: "delete", id });
    }
  }

  /** Loads `namespace` if needed, then {@linkcode searchLoaded}. */
  async search(
    namespace: string,
    query: Float32Array,
    options: SearchOptions,
  ): Promise<VectorHit[]> {
    await this.load(namespace);
    return (await this.searchLoaded(namespace, query, options)) ?? [];
  }

  /**
   * The `k` most similar vectors of a loaded namespace, best first, ties by `record_id`
   * ascending; null when the namespace is not in memory. A zero query matches nothing. The
   * `bits` index ranks by the stored vectors of its shortlist (exact cosines), the others by
   * the vectors they hold.
   */
  async searchLoaded(
    namespace: string,
    query: Float32Array,
    options: SearchOptions,
  ): Promise<VectorHit[] | null> {
    const shard = this.#shards.get(namespace);
    if (!shard) return null;
    this.#usedAt.set(namespace, Date.now());
    if (query.length !== this.#dim) {
      throw new RangeError(`query has ${query.length} dimensions, the index ${this.#dim}`);
    }
    const k = Math.max(0, Math.floor(options.k));
    const floor = options.minSimilarity ?? -1;
    const collapse = options.collapseAbove;
    const collapsing = collapse !== undefined && collapse <= 1;
    const q = unitOrZero(query);
    if (k === 0 || q.every((x) => x === 0)) return [];
    const pool = collapsing ? k * COLLAPSE_POOL : k;
    const data = shard.data;
    if (data instanceof SignCodes) {
      return await this.#rescored(namespace, shard, data, q, {
        k,
        pool,
        floor,
        collapse: collapsing ? collapse : undefined,
      });
    }
    const top: VectorHit[] = [];
    const ids = shard.ids;
    for (let slot = 0; slot < ids.count; slot++) {
      // Rounding can push a self-match a hair past 1.
      const s = Math.max(-1, Math.min(1, data.dot(slot, q)));
      if (!(s >= floor)) continue;
      // The id is decoded only for a tie with the worst kept hit, or to keep this one.
      const worst = top.length === pool ? top[pool - 1] : undefined;
      if (
        worst &&
        (s < worst.similarity || (s === worst.similarity && !(ids.idAt(slot) < worst.record_id)))
      ) continue;
      // Insertion into the small sorted list: k is tens, far cheaper than sorting N scores.
      const hit = { record_id: ids.idAt(slot), similarity: s };
      let i = top.length < pool ? top.length : pool - 1;
      if (top.length < pool) top.push(hit);
      while (i > 0 && better(s, hit.record_id, top[i - 1])) {
        top[i] = top[i - 1];
        i--;
      }
      top[i] = hit;
    }
    if (!collapsing) return top;
    const withSlots = top.map((hit) => ({ hit, slot: ids.slotOf(hit.record_id) }));
    return collapseHits(withSlots, {
      k,
      above: collapse,
      similarity: (a, b) => data.dotSlots(a.slot, b.slot),
    })
      .map((c) => c.hit);
  }

  /**
   * The `bits` search: the codes pick a shortlist, the stored vectors rank it exactly. A
   * namespace no larger than the shortlist is rescored whole (the codes only save reads).
   */
  async #rescored(
    namespace: string,
    shard: Shard,
    codes: SignCodes,
    q: Float32Array,
    options: { k: number; pool: number; floor: number; collapse?: number },
  ): Promise<VectorHit[]> {
    const ids = shard.ids;
    const count = ids.count;
    const size = Math.max(SHORTLIST_MIN, Math.min(SHORTLIST_MAX, options.pool * SHORTLIST_FACTOR));
    const slots = count > size ? codes.shortlist(q, { count, size }) : null;
    const recordIds = slots
      ? Array.from(slots, (slot) => ids.idAt(slot))
      : Array.from({ length: count }, (_, slot) => ids.idAt(slot));
    const rows = await this.#source.getEmbeddings!(namespace, {
      model: this.#model!,
      recordIds,
    });
    // A record deleted, moved or edited while storage was read has left the index by now: it
    // must not answer (an edited record's stored vector is the old text's until re-embedded).
    const held = this.#shards.get(namespace) === shard;
    const scored: { hit: VectorHit; unit: Float32Array }[] = [];
    for (const row of rows) {
      if (row.vector.length !== this.#dim || (held && ids.slotOf(row.record_id) < 0)) {
        freeNow(row.vector);
        continue;
      }
      const unit = l2NormalizeInPlace(row.vector);
      // Rounding can push a self-match a hair past 1.
      const similarity = Math.max(-1, Math.min(1, dotAt(unit, 0, q)));
      if (similarity >= options.floor) {
        scored.push({ hit: { record_id: row.record_id, similarity }, unit });
      } else freeNow(unit);
    }
    scored.sort((a, b) => (better(a.hit.similarity, a.hit.record_id, b.hit) ? -1 : 1));
    const top = scored.slice(0, options.pool);
    const kept = options.collapse === undefined ? top : collapseHits(top, {
      k: options.k,
      above: options.collapse,
      similarity: (a, b) => dotAt(a.unit, 0, b.unit),
    });
    // The rows' memory goes now (see freeNow): a burst of searches would otherwise pile up MBs.
    for (const { unit } of scored) freeNow(unit);
    return kept.map((c) => c.hit);
  }

  /** Vectors held for `namespace` (0 when not loaded). */
  size(namespace: string): number {
    return this.#shards.get(namespace)?.ids.count ?? 0;
  }

  /** Record ids held for `namespace`, sorted (tests and diagnostics). */
  ids(namespace: string): string[] {
    const ids = this.#shards.get(namespace)?.ids;
    return Array.from({ length: ids?.count ?? 0 }, (_, slot) => ids!.idAt(slot)).sort();
  }

  /** True when a loaded namespace holds `recordId`. */
  has(recordId: string): boolean {
    for (const shard of this.#shards.values()) if (shard.ids.slotOf(recordId) >= 0) return true;
    return false;
  }

  /**
   * The held (normalised) vector of a record, or null when no loaded namespace holds it. A
   * `bits` index holds codes, not vectors: it answers null (its vectors are in storage).
   */
  vector(recordId: string): Float32Array | null {
    for (const shard of this.#shards.values()) {
      const slot = shard.ids.slotOf(recordId);
      if (slot >= 0) return shard.data instanceof SignCodes ? null : shard.data.read(slot);
    }
    return null;
  }

  /** Totals for status and the viewer. */
  stats(): {
    model: string | null;
    dim: number;
    namespaces: number;
    vectors: number;
    bytes: number;
  } {
    let vectors = 0;
    let bytes = 0;
    for (const shard of this.#shards.values()) {
      vectors += shard.ids.count;
      bytes += shard.data.bytes;
    }
    return { model: this.#model, dim: this.#dim, namespaces: this.#shards.size, vectors, bytes };
  }

  #put(shard: Shard, id: string, vector: Float32Array): void {
    let slot = shard.ids.slotOf(id);
    if (slot < 0) {
      slot = shard.ids.push(id);
      if (slot + 1 > shard.data.capacity) {
        shard.data = shard.data.resized(Math.max(INITIAL_CAPACITY, shard.data.capacity * 2));
      }
    }
    shard.data.write(slot, vector);
  }

  #remove(shard: Shard, id: string): void {
    const slot = shard.ids.slotOf(id);
    if (slot < 0) return;
    // Swap-remove: the last vector fills the hole, so removal is O(dim), not O(n).
    const last = shard.ids.count - 1;
    if (slot !== last) shard.data.move(last, slot);
    shard.ids.removeSwap(slot);
  }
}

/** Frees a shard's memory now (see `Slots.release`). */
function release(shard: Shard): void {
  shard.data.release();
  shard.ids.release();
}

/**
 * Near-duplicate collapsing over candidates in (similarity desc, id asc) order: greedy, best
 * first, so deterministic; a candidate at least `above` similar to one kept is skipped.
 */
function collapseHits<T extends { hit: VectorHit }>(
  candidates: readonly T[],
  options: { k: number; above: number; similarity: (a: T, b: T) => number },
): T[] {
  const kept: T[] = [];
  for (const candidate of candidates) {
    if (kept.some((other) => options.similarity(candidate, other) >= options.above)) continue;
    kept.push(candidate);
    if (kept.length === options.k) break;
  }
  return kept;
}

function better(score: number, id: string, than: VectorHit): boolean {
  return score > than.similarity || (score === than.similarity && id < than.record_id);
}

/**
 * In-memory latency percentiles for `/v1/stats` and the viewer's overview.
 *
 * A fixed-size ring buffer per measured path: recording is O(1) and allocation-free on the hot
 * path, memory is bounded, and old samples age out on their own so the percentiles describe
 * recent behaviour rather than the whole uptime. Nothing is persisted: a restart starts afresh,
 * which is what an operator looking at "how fast is it now" wants.
 *
 * @module
 */

/** Percentiles over the samples currently in the window (all in milliseconds). */
export interface LatencySummary {
  /** Samples in the window. */
  count: number;
  /** Samples ever recorded (including those that aged out). */
  total: number;
  /** Median, or null with no samples. */
  p50: number | null;
  /** 95th percentile, or null. */
  p95: number | null;
  /** 99th percentile, or null. */
  p99: number | null;
  /** Largest sample in the window, or null. */
  max: number | null;
}

/** Default window: large enough for a stable p99, small enough to sort in microseconds. */
export const DEFAULT_LATENCY_WINDOW = 1024;

/** A ring buffer of latency samples with nearest-rank percentiles. */
export class LatencyRecorder {
  #samples: Float64Array;
  #next = 0;
  #count = 0;
  #total = 0;

  /** Creates a recorder keeping the last `capacity` samples. */
  constructor(capacity: number = DEFAULT_LATENCY_WINDOW) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError("capacity must be a positive integer");
    }
    this.#samples = new Float64Array(capacity);
  }

  /** Records one sample; non-finite or negative values are ignored (a clock hiccup, not data). */
  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.#samples[this.#next] = ms;
    this.#next = (this.#next + 1) % this.#samples.length;
    this.#count = Math.min(this.#count + 1, this.#samples.length);
    this.#total++;
  }

  /** Percentiles of the current window, rounded to 0.01 ms. */
  summary(): LatencySummary {
    const n = this.#count;
    if (n === 0) {
      return { count: 0, total: this.#total, p50: null, p95: null, p99: null, max: null };
    }
    // Sorting a copy keeps record() cheap; summaries are rare (a stats request).
    const sorted = this.#samples.slice(0, n).sort();
    return {
      count: n,
      total: this.#total,
      p50: round(nearestRank(sorted, 50)),
      p95: round(nearestRank(sorted, 95)),
      p99: round(nearestRank(sorted, 99)),
      max: round(sorted[n - 1]),
    };
  }
}

/** The paths whose latency the collector tracks. */
export interface Latencies {
  /** `POST /v1/events` without retrieval: validation, scrub, store, enqueue. */
  ingest: LatencyRecorder;
  /** `POST /v1/events?retrieve=true` (or `context=resume`): what the prompt hook waits for. */
  retrieval: LatencyRecorder;
  /** `POST /v1/hooks/<agent>`: a whole hook firing on a launcher's fast path. */
  hook: LatencyRecorder;
}

/** Creates one recorder per tracked path. */
export function createLatencies(capacity: number = DEFAULT_LATENCY_WINDOW): Latencies {
  return {
    ingest: new LatencyRecorder(capacity),
    retrieval: new LatencyRecorder(capacity),
    hook: new LatencyRecorder(capacity),
  };
}

/** The value at nearest rank `p` (1..100) of an ascending, non-empty array. */
export function nearestRank(sorted: ArrayLike<number>, p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

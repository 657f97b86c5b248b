/**
 * Small statistics and formatting helpers for benchmarks: nearest-rank percentiles, a latency
 * summary, and number formats for the printed tables.
 *
 * @module
 */

/** A latency distribution, in milliseconds. */
export interface LatencySummary {
  /** Samples. */
  count: number;
  /** Fastest sample. */
  min: number;
  /** Arithmetic mean. */
  mean: number;
  /** Median (nearest rank). */
  p50: number;
  /** 95th percentile (nearest rank). */
  p95: number;
  /** 99th percentile (nearest rank). */
  p99: number;
  /** Slowest sample. */
  max: number;
}

/**
 * The `p`th percentile (0–100) of ascending `sorted` samples, by the nearest-rank definition:
 * the smallest sample such that at least `p` percent of the samples are less than or equal to
 * it. `p = 0` gives the minimum and `p = 100` the maximum; the result is always a sample.
 *
 * Throws a `RangeError` on an empty array or on `p` outside [0, 100]. The array is assumed to
 * be sorted; it is not checked (sorting is the caller's job, once, for many percentiles).
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError("percentile of an empty sample");
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be in [0, 100], got ${p}`);
  const exact = (p / 100) * sorted.length;
  // Absorb floating-point noise such as 0.95 * 200 = 190.00000000000003 before rounding up.
  const rank = Math.ceil(exact - 1e-9 * Math.max(1, exact));
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Sorts a copy of `samples` ascending (numerically, not as strings). */
export function sortedAscending(samples: readonly number[]): number[] {
  return [...samples].sort((a, b) => a - b);
}

/** Summarises latency samples (milliseconds). Throws a `RangeError` when there are none. */
export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = sortedAscending(samples);
  if (sorted.length === 0) throw new RangeError("cannot summarise an empty sample");
  const total = sorted.reduce((sum, x) => sum + x, 0);
  return {
    count: sorted.length,
    min: sorted[0],
    mean: total / sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
  };
}

/**
 * Formats milliseconds with about two significant digits: `0.18 ms`, `1.2 ms`, `34 ms`,
 * `1,250 ms`. Values under 0.01 ms print as `<0.01 ms`.
 */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return `${ms} ms`;
  if (ms > 0 && ms < 0.01) return "<0.01 ms";
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  return `${formatCount(ms)} ms`;
}

/** Formats seconds from milliseconds: `0.42 s`, `3.1 s`, `48 s`. */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  if (s < 1) return `${s.toFixed(2)} s`;
  if (s < 10) return `${s.toFixed(1)} s`;
  return `${formatCount(s)} s`;
}

/** Rounds to an integer and groups thousands with commas: `4812.3` gives `4,812`. */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const rounded = Math.round(n);
  const sign = rounded < 0 ? "-" : "";
  return sign + String(Math.abs(rounded)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Formats a size as `1k`, `10k`, `100k` or `1.5M` (exact thousands stay integral). */
export function formatSize(n: number): string {
  if (n >= 1_000_000 && n % 100_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1000 && n % 100 === 0) return `${n / 1000}k`;
  return String(n);
}

/** Formats bytes as `812 B`, `4.2 KiB`, `37 MiB`. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${value} B`;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** Rounds to `digits` decimals, for JSON output that stays readable. */
export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A benchmark's timing figure as the benchmarks write it to `.bench/<name>.json`. */
export interface TimingFigure {
  /** Measured runs. */
  runs: number;
  /** Median, in ms. */
  median_ms: number;
  /** 95th percentile, in ms. */
  p95_ms: number;
  /** Fastest run, in ms. */
  min_ms: number;
  /** Slowest run, in ms. */
  max_ms: number;
}

/** The {@linkcode TimingFigure} of a set of run times in ms. */
export function timingFigure(times: readonly number[]): TimingFigure {
  const s = summarize(times);
  return { runs: times.length, median_ms: s.p50, p95_ms: s.p95, min_ms: s.min, max_ms: s.max };
}

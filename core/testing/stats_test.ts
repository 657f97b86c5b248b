import assert from "node:assert/strict";
import fc from "fast-check";
import {
  formatBytes,
  formatCount,
  formatMs,
  formatSeconds,
  formatSize,
  percentile,
  sortedAscending,
  summarize,
  timingFigure,
} from "./stats.ts";

/** Nearest rank, straight from the definition: the smallest sample with at least p% at or below. */
function nearestRankByDefinition(sorted: readonly number[], tenthsOfPercent: number): number {
  for (const candidate of sorted) {
    const atOrBelow = sorted.filter((x) => x <= candidate).length;
    // atOrBelow / n >= p / 100, with p = tenths / 10, in integers.
    if (atOrBelow * 1000 >= tenthsOfPercent * sorted.length) return candidate;
  }
  return sorted[sorted.length - 1];
}

Deno.test("percentile: nearest rank on small examples", () => {
  const xs = [15, 20, 35, 40, 50];
  assert.equal(percentile(xs, 0), 15);
  assert.equal(percentile(xs, 5), 15);
  assert.equal(percentile(xs, 30), 20);
  assert.equal(percentile(xs, 40), 20);
  assert.equal(percentile(xs, 50), 35);
  assert.equal(percentile(xs, 100), 50);
  assert.equal(percentile([7], 99), 7);
});

Deno.test("percentile: exact multiples are not pushed up by floating-point noise", () => {
  const xs = Array.from({ length: 200 }, (_, i) => i + 1);
  assert.equal(percentile(xs, 95), 190);
  assert.equal(percentile(xs, 50), 100);
  const thousand = Array.from({ length: 1000 }, (_, i) => i + 1);
  assert.equal(percentile(thousand, 99.9), 999);
  assert.equal(percentile(thousand, 0.1), 1);
});

Deno.test("percentile: rejects an empty sample and p outside [0, 100]", () => {
  assert.throws(() => percentile([], 50), RangeError);
  assert.throws(() => percentile([1], -1), RangeError);
  assert.throws(() => percentile([1], 100.5), RangeError);
  assert.throws(() => percentile([1], Number.NaN), RangeError);
});

Deno.test("percentile: property, equals the nearest-rank definition", () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), {
        minLength: 1,
        maxLength: 60,
      }),
      fc.integer({ min: 0, max: 1000 }),
      (samples, tenths) => {
        const sorted = sortedAscending(samples);
        const got = percentile(sorted, tenths / 10);
        assert.ok(
          Object.is(got, nearestRankByDefinition(sorted, tenths)) ||
            got === nearestRankByDefinition(sorted, tenths),
        );
        assert.ok(sorted.includes(got));
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("percentile: property, monotone in p", () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 40 }),
      fc.integer({ min: 0, max: 100 }),
      fc.integer({ min: 0, max: 100 }),
      (samples, p, q) => {
        const sorted = sortedAscending(samples);
        const [lo, hi] = p <= q ? [p, q] : [q, p];
        assert.ok(percentile(sorted, lo) <= percentile(sorted, hi));
      },
    ),
  );
});

Deno.test("sortedAscending: numeric order, input untouched", () => {
  const input = [10, 9, 100, 1];
  assert.deepEqual(sortedAscending(input), [1, 9, 10, 100]);
  assert.deepEqual(input, [10, 9, 100, 1]);
});

Deno.test("summarize: min, mean, percentiles, max", () => {
  const summary = summarize(Array.from({ length: 100 }, (_, i) => 100 - i));
  assert.deepEqual(summary, {
    count: 100,
    min: 1,
    mean: 50.5,
    p50: 50,
    p95: 95,
    p99: 99,
    max: 100,
  });
  assert.throws(() => summarize([]), RangeError);
});

Deno.test("formatMs: about two significant digits", () => {
  assert.equal(formatMs(0.184), "0.18 ms");
  assert.equal(formatMs(1.234), "1.2 ms");
  assert.equal(formatMs(7), "7.0 ms");
  assert.equal(formatMs(34.4), "34 ms");
  assert.equal(formatMs(1250), "1,250 ms");
  assert.equal(formatMs(0.001), "<0.01 ms");
  assert.equal(formatMs(0), "0.00 ms");
});

Deno.test("formatCount, formatSeconds, formatSize, formatBytes", () => {
  assert.equal(formatCount(4812.3), "4,812");
  assert.equal(formatCount(999), "999");
  assert.equal(formatCount(1234567), "1,234,567");
  assert.equal(formatCount(-1500), "-1,500");
  assert.equal(formatSeconds(420), "0.42 s");
  assert.equal(formatSeconds(3140), "3.1 s");
  assert.equal(formatSeconds(48_200), "48 s");
  assert.equal(formatSize(1000), "1k");
  assert.equal(formatSize(10_000), "10k");
  assert.equal(formatSize(100_000), "100k");
  assert.equal(formatSize(2500), "2.5k");
  assert.equal(formatSize(20), "20");
  assert.equal(formatBytes(812), "812 B");
  assert.equal(formatBytes(4300), "4.2 KiB");
  assert.equal(formatBytes(37 * 1024 * 1024), "37 MiB");
});

Deno.test("timingFigure: runs, median, p95, min and max of the times", () => {
  assert.deepEqual(timingFigure([30, 10, 20, 40]), {
    runs: 4,
    median_ms: 20,
    p95_ms: 40,
    min_ms: 10,
    max_ms: 40,
  });
});

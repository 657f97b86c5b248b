import assert from "node:assert/strict";
import fc from "fast-check";
import { createLatencies, LatencyRecorder, nearestRank } from "./latency.ts";

Deno.test("an empty recorder reports nulls", () => {
  assert.deepEqual(new LatencyRecorder(4).summary(), {
    count: 0,
    total: 0,
    p50: null,
    p95: null,
    p99: null,
    max: null,
  });
});

Deno.test("nearest-rank percentiles over 1..100", () => {
  const recorder = new LatencyRecorder(100);
  for (let i = 100; i >= 1; i--) recorder.record(i);
  assert.deepEqual(recorder.summary(), {
    count: 100,
    total: 100,
    p50: 50,
    p95: 95,
    p99: 99,
    max: 100,
  });
});

Deno.test("only the last `capacity` samples count; bad samples are ignored", () => {
  const recorder = new LatencyRecorder(3);
  for (const ms of [1000, 1000, 1, 2, 3, NaN, -1, Infinity]) recorder.record(ms);
  const s = recorder.summary();
  assert.equal(s.count, 3);
  assert.equal(s.total, 5);
  assert.equal(s.max, 3);
  assert.equal(s.p50, 2);
});

Deno.test("rejects a capacity that is not a positive integer", () => {
  assert.throws(() => new LatencyRecorder(0), RangeError);
  assert.throws(() => new LatencyRecorder(1.5), RangeError);
});

Deno.test("property: percentiles are ordered window members; the window is the tail", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 64 }),
      fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 300 }),
      (capacity, samples) => {
        const recorder = new LatencyRecorder(capacity);
        for (const ms of samples) recorder.record(ms);
        const s = recorder.summary();
        const window = samples.slice(-capacity).sort((a, b) => a - b);
        assert.equal(s.count, window.length);
        assert.equal(s.total, samples.length);
        const rounded = window.map((v) => Math.round(v * 100) / 100);
        for (const p of [s.p50, s.p95, s.p99, s.max]) assert.ok(rounded.includes(p!));
        assert.ok(s.p50! <= s.p95! && s.p95! <= s.p99! && s.p99! <= s.max!);
        assert.equal(s.max, rounded.at(-1));
        assert.equal(s.p50, Math.round(nearestRank(window, 50) * 100) / 100);
      },
    ),
  );
});

Deno.test("createLatencies gives independent recorders", () => {
  const l = createLatencies(8);
  l.ingest.record(5);
  assert.equal(l.ingest.summary().count, 1);
  assert.equal(l.retrieval.summary().count, 0);
});

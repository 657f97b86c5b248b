import assert from "node:assert/strict";
import fc from "fast-check";
import { cosineSimilarity, norm, normalizedMean } from "@kiro-learn/core/search";
import { clusterCandidates } from "./cluster.ts";

// Small integer-ish vectors make exact ties at the threshold likely, which is the point.
const vecArb = fc.array(fc.integer({ min: -2, max: 2 }), { minLength: 3, maxLength: 3 })
  .map((xs) => Float32Array.from(xs));
const embeddingsArb = fc.array(fc.option(vecArb, { nil: null, freq: 4 }), { maxLength: 12 });
const thresholdArb = fc.constantFrom(-1, 0, 0.5, 0.8, 0.85, 0.9, 1);

Deno.test("clusters partition the candidates, ordered by lowest member", () => {
  fc.assert(fc.property(embeddingsArb, thresholdArb, (embeddings, threshold) => {
    const clusters = clusterCandidates(embeddings, { threshold });
    const all = clusters.flatMap((c) => c.members).sort((a, b) => a - b);
    assert.deepEqual(all, embeddings.map((_, i) => i));
    for (const c of clusters) assert.deepEqual(c.members, [...c.members].sort((a, b) => a - b));
    const heads = clusters.map((c) => c.members[0]);
    assert.deepEqual(heads, [...heads].sort((a, b) => a - b));
  }));
});

Deno.test("null embeddings are singletons with a null centroid", () => {
  fc.assert(fc.property(embeddingsArb, thresholdArb, (embeddings, threshold) => {
    for (const c of clusterCandidates(embeddings, { threshold })) {
      if (c.members.some((i) => embeddings[i] === null)) {
        assert.equal(c.members.length, 1);
        assert.equal(c.centroid, null);
      }
    }
  }));
});

Deno.test("pairs at or above the threshold share a cluster; clusters are connected by such pairs", () => {
  fc.assert(fc.property(embeddingsArb, thresholdArb, (embeddings, threshold) => {
    const clusters = clusterCandidates(embeddings, { threshold });
    const of = new Map<number, number>();
    clusters.forEach((c, ci) => c.members.forEach((m) => of.set(m, ci)));
    const linked = (i: number, j: number) =>
      embeddings[i] !== null && embeddings[j] !== null &&
      cosineSimilarity(embeddings[i]!, embeddings[j]!) >= threshold;
    for (let i = 0; i < embeddings.length; i++) {
      for (let j = i + 1; j < embeddings.length; j++) {
        if (linked(i, j)) assert.equal(of.get(i), of.get(j), `${i}~${j}`);
      }
    }
    // Every cluster is one connected component of the "linked" graph.
    for (const c of clusters) {
      const seen = new Set([c.members[0]]);
      const stack = [c.members[0]];
      while (stack.length > 0) {
        const i = stack.pop()!;
        for (const j of c.members) {
          if (!seen.has(j) && linked(i, j)) {
            seen.add(j);
            stack.push(j);
          }
        }
      }
      assert.equal(seen.size, c.members.length);
    }
  }));
});

Deno.test("threshold monotonicity: a higher threshold only splits clusters", () => {
  fc.assert(fc.property(embeddingsArb, thresholdArb, thresholdArb, (embeddings, t1, t2) => {
    const [low, high] = t1 <= t2 ? [t1, t2] : [t2, t1];
    const coarse = clusterCandidates(embeddings, { threshold: low });
    const fine = clusterCandidates(embeddings, { threshold: high });
    assert.ok(fine.length >= coarse.length);
    const coarseOf = new Map<number, number>();
    coarse.forEach((c, ci) => c.members.forEach((m) => coarseOf.set(m, ci)));
    for (const c of fine) {
      assert.equal(new Set(c.members.map((m) => coarseOf.get(m))).size, 1);
    }
  }));
});

Deno.test("centroid: unit mean of the members when all are present", () => {
  fc.assert(fc.property(embeddingsArb, (embeddings) => {
    for (const c of clusterCandidates(embeddings, { threshold: 0.85 })) {
      if (c.centroid === null) continue;
      assert.ok(Math.abs(norm(c.centroid) - 1) < 1e-5);
      assert.deepEqual(c.centroid, normalizedMean(c.members.map((m) => embeddings[m]!)));
    }
  }));
  const [c] = clusterCandidates([Float32Array.of(1, 0), Float32Array.of(0.9, 0.1)], {
    threshold: 0.85,
  });
  assert.deepEqual(c.members, [0, 1]);
  assert.ok(Math.abs(c.centroid![0] - 0.9986) < 1e-3);
  // Inclusive threshold.
  const exact = clusterCandidates([Float32Array.of(1, 0), Float32Array.of(1, 0)], { threshold: 1 });
  assert.equal(exact.length, 1);
  // Different dimensions never join.
  assert.equal(
    clusterCandidates([Float32Array.of(1, 0), Float32Array.of(1, 0, 0)], { threshold: 0 }).length,
    2,
  );
});

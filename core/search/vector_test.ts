import assert from "node:assert/strict";
import fc from "fast-check";
import {
  cosineSimilarity,
  dot,
  dotAt,
  isFiniteVector,
  l2Normalize,
  norm,
  normalizedMean,
  unitOrZero,
} from "./vector.ts";

function vectorArb(dim: number): fc.Arbitrary<Float32Array> {
  return fc.array(fc.float({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true }), {
    minLength: dim,
    maxLength: dim,
  }).map((xs) => Float32Array.from(xs));
}

const pairArb = fc.integer({ min: 1, max: 48 }).chain((dim) =>
  fc.tuple(vectorArb(dim), vectorArb(dim))
);

Deno.test("cosine is symmetric, bounded, and 1 for a vector with itself", () => {
  fc.assert(fc.property(pairArb, ([a, b]) => {
    const ab = cosineSimilarity(a, b);
    assert.equal(ab, cosineSimilarity(b, a));
    assert.ok(ab >= -1 && ab <= 1);
    if (norm(a) > 1e-3) assert.ok(Math.abs(cosineSimilarity(a, a) - 1) < 1e-6);
  }));
});

Deno.test("cosine ignores scale and flips sign with a negated vector", () => {
  fc.assert(
    fc.property(
      pairArb,
      fc.float({ min: Math.fround(0.01), max: 100, noNaN: true }),
      ([a, b], s) => {
        fc.pre(norm(a) > 1e-2 && norm(b) > 1e-2);
        const scaled = a.map((x) => x * s);
        assert.ok(Math.abs(cosineSimilarity(scaled, b) - cosineSimilarity(a, b)) < 1e-4);
        const negated = a.map((x) => -x);
        assert.ok(Math.abs(cosineSimilarity(negated, b) + cosineSimilarity(a, b)) < 1e-6);
      },
    ),
  );
});

Deno.test("cosine of unit vectors equals their dot product", () => {
  fc.assert(fc.property(pairArb, ([a, b]) => {
    const ua = l2Normalize(a);
    const ub = l2Normalize(b);
    fc.pre(ua !== null && ub !== null);
    assert.ok(Math.abs(cosineSimilarity(ua!, ub!) - dot(ua!, ub!)) < 1e-5);
  }));
});

Deno.test("zero vectors are similar to nothing; lengths must match", () => {
  assert.equal(cosineSimilarity(new Float32Array(3), Float32Array.of(1, 2, 3)), 0);
  assert.equal(l2Normalize(new Float32Array(4)), null);
  assert.throws(() => cosineSimilarity(new Float32Array(2), new Float32Array(3)), RangeError);
});

Deno.test("normalizedMean is unit length, order-independent, and null when undefined", () => {
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 16 }).chain((dim) =>
      fc.array(vectorArb(dim), { minLength: 1, maxLength: 6 })
    ),
    (vectors) => {
      const mean = normalizedMean(vectors);
      if (mean === null) return;
      assert.ok(Math.abs(norm(mean) - 1) < 1e-5);
      const reversed = normalizedMean([...vectors].reverse())!;
      for (let i = 0; i < mean.length; i++) assert.ok(Math.abs(mean[i] - reversed[i]) < 1e-6);
    },
  ));
  assert.equal(normalizedMean([]), null);
  assert.equal(normalizedMean([Float32Array.of(1, 0), Float32Array.of(-1, 0)]), null);
  assert.equal(normalizedMean([Float32Array.of(1, 0), Float32Array.of(1, 0, 0)]), null);
  assert.deepEqual(
    normalizedMean([Float32Array.of(3, 0), Float32Array.of(0, 3)]),
    Float32Array.of(Math.SQRT1_2, Math.SQRT1_2),
  );
});

// The embedding index's helpers (formerly collector/embedding/vector_math.ts).

function embeddingVectorArb(dim: number): fc.Arbitrary<Float32Array> {
  return fc.array(fc.float({ min: -100, max: 100, noNaN: true }), {
    minLength: dim,
    maxLength: dim,
  }).map((a) => Float32Array.from(a));
}

const embeddingPairArb = fc.integer({ min: 1, max: 64 }).chain((dim) =>
  fc.tuple(embeddingVectorArb(dim), embeddingVectorArb(dim))
);

Deno.test("cosineSimilarity is symmetric and within [-1, 1]", () => {
  fc.assert(
    fc.property(embeddingPairArb, ([a, b]) => {
      assert.equal(cosineSimilarity(a, b), cosineSimilarity(b, a));
      assert.ok(cosineSimilarity(a, b) >= -1 && cosineSimilarity(a, b) <= 1);
    }),
  );
});

Deno.test("cosineSimilarity of a non-zero vector with itself is 1", () => {
  fc.assert(
    fc.property(embeddingVectorArb(16), (a) => {
      fc.pre(norm(a) > 1e-6);
      assert.ok(Math.abs(cosineSimilarity(a, a) - 1) < 1e-9, `${cosineSimilarity(a, a)}`);
    }),
  );
});

Deno.test("the zero vector scores 0 against everything and normalises to zeros", () => {
  fc.assert(
    fc.property(embeddingVectorArb(8), (a) => {
      const zero = new Float32Array(8);
      assert.equal(cosineSimilarity(zero, a), 0);
      assert.equal(cosineSimilarity(a, zero), 0);
      assert.deepEqual(unitOrZero(zero), zero);
    }),
  );
});

Deno.test("normalised vectors have unit length and their dot product is the cosine", () => {
  fc.assert(
    fc.property(embeddingPairArb, ([a, b]) => {
      fc.pre(norm(a) > 1e-3 && norm(b) > 1e-3);
      const na = unitOrZero(a);
      const nb = unitOrZero(b);
      assert.ok(Math.abs(norm(na) - 1) < 1e-5);
      assert.ok(Math.abs(dot(na, nb) - cosineSimilarity(a, b)) < 1e-5);
    }),
  );
});

Deno.test("cosineSimilarity is invariant under positive scaling", () => {
  fc.assert(
    fc.property(
      embeddingPairArb,
      fc.float({ min: Math.fround(0.01), max: 100, noNaN: true }),
      ([a, b], k) => {
        fc.pre(norm(a) > 1e-3 && norm(b) > 1e-3);
        const scaled = a.map((x) => x * k);
        assert.ok(Math.abs(cosineSimilarity(scaled, b) - cosineSimilarity(a, b)) < 1e-4);
      },
    ),
  );
});

Deno.test("dot rejects vectors of different lengths; isFiniteVector spots NaN", () => {
  assert.throws(() => dot(new Float32Array(2), new Float32Array(3)), RangeError);
  assert.equal(isFiniteVector(Float32Array.from([1, NaN])), false);
  assert.equal(isFiniteVector(Float32Array.from([1, 2])), true);
});

Deno.test("dotAt equals dot at any offset and any length", () => {
  fc.assert(
    fc.property(embeddingPairArb, fc.integer({ min: 0, max: 5 }), ([a, b], pad) => {
      const data = new Float32Array(pad + a.length + 3);
      data.set(a, pad);
      assert.ok(Math.abs(dotAt(data, pad, b) - dot(a, b)) <= 1e-9 * (1 + Math.abs(dot(a, b))));
    }),
  );
});

Deno.test("dotAt reads int8 codes as their values (a quantised index's vectors)", () => {
  const codes = Int8Array.from([9, -127, 3, 127, -5, 0, 1]);
  const q = Float32Array.from([0.5, 0.25, -1, 2, 1]);
  assert.equal(dotAt(codes, 1, q), -127 * 0.5 + 3 * 0.25 + 127 * -1 + -5 * 2 + 0 * 1);
  assert.equal(dotAt(codes, 0, q), 9 * 0.5 + -127 * 0.25 + 3 * -1 + 127 * 2 + -5 * 1);
});

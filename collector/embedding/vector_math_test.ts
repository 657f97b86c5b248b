import assert from "node:assert/strict";
import fc from "fast-check";
import { cosine, dot, dotAt, isFiniteVector, l2Norm, l2Normalize } from "./vector_math.ts";

function vectorArb(dim: number): fc.Arbitrary<Float32Array> {
  return fc.array(fc.float({ min: -100, max: 100, noNaN: true }), {
    minLength: dim,
    maxLength: dim,
  }).map((a) => Float32Array.from(a));
}

const pairArb = fc.integer({ min: 1, max: 64 }).chain((dim) =>
  fc.tuple(vectorArb(dim), vectorArb(dim))
);

Deno.test("cosine is symmetric and within [-1, 1]", () => {
  fc.assert(
    fc.property(pairArb, ([a, b]) => {
      assert.equal(cosine(a, b), cosine(b, a));
      assert.ok(cosine(a, b) >= -1 && cosine(a, b) <= 1);
    }),
  );
});

Deno.test("cosine of a non-zero vector with itself is 1", () => {
  fc.assert(
    fc.property(vectorArb(16), (a) => {
      fc.pre(l2Norm(a) > 1e-6);
      assert.ok(Math.abs(cosine(a, a) - 1) < 1e-9, `${cosine(a, a)}`);
    }),
  );
});

Deno.test("the zero vector scores 0 against everything and normalises to zeros", () => {
  fc.assert(
    fc.property(vectorArb(8), (a) => {
      const zero = new Float32Array(8);
      assert.equal(cosine(zero, a), 0);
      assert.equal(cosine(a, zero), 0);
      assert.deepEqual(l2Normalize(zero), zero);
    }),
  );
});

Deno.test("normalised vectors have unit length and their dot product is the cosine", () => {
  fc.assert(
    fc.property(pairArb, ([a, b]) => {
      fc.pre(l2Norm(a) > 1e-3 && l2Norm(b) > 1e-3);
      const na = l2Normalize(a);
      const nb = l2Normalize(b);
      assert.ok(Math.abs(l2Norm(na) - 1) < 1e-5);
      assert.ok(Math.abs(dot(na, nb) - cosine(a, b)) < 1e-5);
    }),
  );
});

Deno.test("cosine is invariant under positive scaling", () => {
  fc.assert(
    fc.property(
      pairArb,
      fc.float({ min: Math.fround(0.01), max: 100, noNaN: true }),
      ([a, b], k) => {
        fc.pre(l2Norm(a) > 1e-3 && l2Norm(b) > 1e-3);
        const scaled = a.map((x) => x * k);
        assert.ok(Math.abs(cosine(scaled, b) - cosine(a, b)) < 1e-4);
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
    fc.property(pairArb, fc.integer({ min: 0, max: 5 }), ([a, b], pad) => {
      const data = new Float32Array(pad + a.length + 3);
      data.set(a, pad);
      assert.ok(Math.abs(dotAt(data, pad, b) - dot(a, b)) <= 1e-9 * (1 + Math.abs(dot(a, b))));
    }),
  );
});

import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeEmbedding, encodeEmbedding, freeNow } from "./embedding_blob.ts";

Deno.test("embedding blobs round-trip bit-exactly (NaN, ±0, subnormals included)", () => {
  fc.assert(fc.property(fc.float32Array({ minLength: 1, maxLength: 512 }), (values) => {
    const blob = encodeEmbedding(values);
    assert.equal(blob.byteLength, values.length * 4);
    const back = decodeEmbedding(blob, { dim: values.length, recordId: "mr_x" });
    assert.deepEqual(new Uint8Array(back.buffer), new Uint8Array(values.buffer));
  }));
});

Deno.test("a 384-d embedding is 1,536 bytes, little-endian", () => {
  const v = new Float32Array(384);
  v[0] = 1;
  const blob = encodeEmbedding(v);
  assert.equal(blob.byteLength, 1536);
  assert.deepEqual([...blob.slice(0, 4)], [0, 0, 0x80, 0x3f]);
});

Deno.test("a blob of the wrong length names the record", () => {
  assert.throws(
    () => decodeEmbedding(new Uint8Array(10), { dim: 384, recordId: "mr_bad" }),
    /mr_bad is 10 bytes, expected 1536/,
  );
});

Deno.test("freeNow frees a view owning its whole buffer, never one sharing it", () => {
  const owner = encodeEmbedding(Float32Array.from([1, 2, 3, 4]));
  const part = owner.subarray(4, 8);
  assert.equal(freeNow(part), false);
  assert.equal(freeNow(new Float32Array(owner.buffer, 0, 2)), false);
  assert.deepEqual([...part], [0, 0, 0, 0x40]);
  assert.equal(freeNow(owner), true);
  assert.equal(owner.byteLength, 0);
  assert.equal(part.byteLength, 0);
  assert.equal(freeNow(owner), false, "a second free is a no-op, not a TypeError");
  assert.equal(freeNow(new Float32Array(new SharedArrayBuffer(8))), false);
});

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { sha256, sha256Hex } from "./sha256.ts";

function nodeHex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

Deno.test("sha256: FIPS 180-4 / NIST test vectors", () => {
  const vectors: Array<[string, string]> = [
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
    [
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    ],
    [
      "The quick brown fox jumps over the lazy dog",
      "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592",
    ],
  ];
  for (const [input, hex] of vectors) assert.equal(sha256Hex(input), hex, JSON.stringify(input));
  assert.equal(
    sha256Hex("a".repeat(1_000_000)),
    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
  );
});

Deno.test("sha256: every length around the block and padding boundaries matches node:crypto", () => {
  for (let n = 0; n <= 200; n++) {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
    assert.equal(sha256Hex(bytes), nodeHex(bytes), `length ${n}`);
  }
  assert.equal(sha256(new Uint8Array()).length, 32);
});

Deno.test("property: sha256 agrees with node:crypto on strings and bytes", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (text) => {
      assert.equal(sha256Hex(text), nodeHex(text));
    }),
    { numRuns: 500 },
  );
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
      assert.equal(sha256Hex(bytes), nodeHex(bytes));
    }),
    { numRuns: 300 },
  );
});

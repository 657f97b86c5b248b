import assert from "node:assert/strict";
import fc from "fast-check";
import { truncateChars, utf8Length } from "./text.ts";

/** Any code point, lone surrogates included (cheaper to build than fast-check's "binary" unit). */
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));

const anyUnits = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
});

Deno.test("truncateChars keeps short text and cuts long text", () => {
  assert.equal(truncateChars("hello", 10), "hello");
  assert.equal(truncateChars("hello world", 6), "hello");
});

Deno.test("truncateChars never leaves half a surrogate pair", () => {
  const text = "ab😀cd";
  assert.equal(truncateChars(text, 3), "ab");
  assert.equal(truncateChars(text, 4), "ab😀");
});

Deno.test("property: utf8Length agrees with TextEncoder", () => {
  const encoder = new TextEncoder();
  fc.assert(
    fc.property(fc.oneof(anyUnits, fc.string({ unit: codePoint })), (text) => {
      assert.equal(utf8Length(text), encoder.encode(text).length);
    }),
    { numRuns: 500 },
  );
});

Deno.test("property: truncateChars respects the limit", () => {
  fc.assert(
    fc.property(fc.string({ unit: codePoint }), fc.nat(40), (text, max) => {
      const cut = truncateChars(text, max);
      assert.ok(cut.length <= max || cut === text);
      assert.ok(text.startsWith(cut));
    }),
  );
});

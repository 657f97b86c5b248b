import assert from "node:assert/strict";
import fc from "fast-check";
import { escapeXml, unescapeXml } from "./escape.ts";

/** Any code point, lone surrogates included (cheaper to build than fast-check's "binary" unit). */
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));

/** Any UTF-16 string, lone surrogates included. */
const anyUnits = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
});

Deno.test("escapeXml escapes the five special characters", () => {
  assert.equal(
    escapeXml(`<a href="x">Tom & 'Jerry'</a>`),
    "&lt;a href=&quot;x&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/a&gt;",
  );
});

Deno.test("escapeXml escapes an existing entity's ampersand, so it survives a round trip", () => {
  assert.equal(escapeXml("&lt;"), "&amp;lt;");
  assert.equal(unescapeXml(escapeXml("&lt;")), "&lt;");
});

Deno.test("unescapeXml decodes named and numeric references in one pass", () => {
  assert.equal(unescapeXml("&lt;b&gt; &amp;amp; &quot;&apos;"), `<b> &amp; "'`);
  assert.equal(unescapeXml("&#65;&#x42;&#X43;&#x1F600;"), "ABC😀");
});

Deno.test("unescapeXml leaves invalid references and stray ampersands as written", () => {
  for (
    const text of [
      "&#0;",
      "&#xD800;",
      "&#x110000;",
      "&#99999999;",
      "&nbsp;",
      "a & b",
      "&#;",
      "&amp",
    ]
  ) {
    assert.equal(unescapeXml(text), text);
  }
});

Deno.test("property: unescapeXml(escapeXml(s)) === s", () => {
  for (const arb of [fc.string(), fc.string({ unit: codePoint }), anyUnits]) {
    fc.assert(fc.property(arb, (text) => unescapeXml(escapeXml(text)) === text), { numRuns: 300 });
  }
});

Deno.test("property: escaped text holds no markup characters and only known entities", () => {
  fc.assert(
    fc.property(fc.string({ unit: codePoint }), (text) => {
      const escaped = escapeXml(text);
      assert.ok(!/[<>"']/.test(escaped));
      assert.ok(!/&(?!(?:amp|lt|gt|quot|apos);)/.test(escaped));
    }),
    { numRuns: 300 },
  );
});

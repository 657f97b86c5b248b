import assert from "node:assert/strict";
import { elementText, findOpenTag, hasOpenTag, parseAttributes, scanElements } from "./_scan.ts";

Deno.test("scanElements finds elements in order, with attributes", () => {
  const found = scanElements(`x <a k="1">one</a> y <a>two</a><a/>`, "a");
  assert.deepEqual(found, [
    { attrs: ` k="1"`, inner: "one", selfClosing: false },
    { attrs: "", inner: "two", selfClosing: false },
    { attrs: "", inner: "", selfClosing: true },
  ]);
});

Deno.test("scanElements respects the tag-name boundary", () => {
  const found = scanElements("<files><file>a</file><file >b</file ></files>", "file");
  assert.deepEqual(found.map((f) => f.inner), ["a", "b"]);
});

Deno.test("scanElements skips an unclosed element without swallowing the next one", () => {
  const found = scanElements("<a>broken <a>ok</a> <a>tail", "a");
  assert.deepEqual(found.map((f) => f.inner), ["ok"]);
});

Deno.test("scanElements stops at the limit", () => {
  assert.equal(scanElements("<a>1</a><a>2</a>", "a", { limit: 1 }).length, 1);
});

Deno.test("findOpenTag and hasOpenTag need a boundary", () => {
  assert.equal(findOpenTag("<skipper> <skip/>", "skip"), 10);
  assert.ok(hasOpenTag("text <skip", "skip"));
  assert.ok(!hasOpenTag("<skipped>", "skip"));
});

Deno.test("parseAttributes reads double, single and unquoted values", () => {
  const attrs = parseAttributes(` type="decision" Reason='a &amp; b' n=3 flag`);
  assert.equal(attrs.get("type"), "decision");
  assert.equal(attrs.get("reason"), "a & b");
  assert.equal(attrs.get("n"), "3");
  assert.equal(attrs.get("flag"), "");
});

Deno.test("parseAttributes stops at an unterminated quote", () => {
  const attrs = parseAttributes(` a="1" b="never closed`);
  assert.equal(attrs.get("a"), "1");
  assert.equal(attrs.has("b"), false);
});

Deno.test("elementText trims, unescapes, and takes CDATA literally", () => {
  assert.equal(elementText("  a &lt; b \n"), "a < b");
  assert.equal(elementText("<![CDATA[ x &lt; y ]]>"), "x &lt; y");
});

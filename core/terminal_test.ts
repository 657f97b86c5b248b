import assert from "node:assert/strict";
import fc from "fast-check";
import { plainTitle, terminalSafe } from "./terminal.ts";

const HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZWNobyBoaQ==\x07\u009b31m\rback\bspace\x7f";

Deno.test("terminalSafe shows every control a terminal acts on as its JSON escape", () => {
  assert.equal(
    terminalSafe(HOSTILE),
    "\\u001b]0;pwned\\u0007\\u001b[2J\\u001b]52;c;ZWNobyBoaQ==\\u0007\\u009b31m\\u000dback" +
      "\\u0008space\\u007f",
  );
  // Inside JSON (where JSON.stringify leaves DEL and C1 raw) the escapes keep it valid JSON.
  const json = terminalSafe(JSON.stringify({ title: "a\u009bb\x7f\x1b" }));
  assert.deepEqual(JSON.parse(json), { title: "a\u009bb\x7f\x1b" });
  assert.equal(terminalSafe("two\tcolumns\nand lines, é ✓"), "two\tcolumns\nand lines, é ✓");
});

Deno.test("terminalSafe leaves no control but tab and newline, whatever the text", () => {
  fc.assert(fc.property(fc.string({ unit: "binary" }), (s) => {
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(terminalSafe(s), /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  }));
});

Deno.test("plainTitle turns every control of a title into a space", () => {
  assert.equal(plainTitle("Fix\x1b[2J the\tparser\r\nnow\x07"), "Fix [2J the parser  now ");
  assert.equal(plainTitle("\x1b\x07\u009b"), "   ");
  fc.assert(fc.property(fc.string({ unit: "binary" }), (s) => {
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(plainTitle(s), /[\u0000-\u001f\u007f-\u009f]/);
  }));
});

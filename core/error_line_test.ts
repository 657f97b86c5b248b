import assert from "node:assert/strict";
import { MAX_ERROR_LINE_CHARS, tellingErrorLine } from "./error_line.ts";

Deno.test("the assertion wins over the runner's summary, wherever it sits", () => {
  assert.equal(
    tellingErrorLine("error: Test failed\nerror: AssertionError: expected 3 to equal 4"),
    "error: AssertionError: expected 3 to equal 4",
  );
  assert.equal(
    tellingErrorLine("FAIL src/a.test.js\n    Expected: 4\n    Received: 3\nTests: 1 failed"),
    "Expected: 4 Received: 3",
  );
  assert.equal(
    tellingErrorLine(
      "thread 'total' panicked at src/lib.rs:9:5:\nassertion `left == right` failed",
    ),
    "thread 'total' panicked at src/lib.rs:9:5:",
  );
});

Deno.test("without an assertion: a named error, then a problem, then a summary, then line one", () => {
  assert.equal(
    tellingErrorLine("parses a leap day ... FAILED\nerror: RangeError: bad day: 29"),
    "error: RangeError: bad day: 29",
  );
  assert.equal(tellingErrorLine("building\ncannot open file x"), "cannot open file x");
  assert.equal(
    tellingErrorLine("ok\nFAILED | 0 passed | 1 failed"),
    "FAILED | 0 passed | 1 failed",
  );
  assert.equal(tellingErrorLine("first\nsecond"), "first");
  assert.equal(tellingErrorLine("  \n"), "");
  assert.equal(tellingErrorLine("Error: " + "x".repeat(900)).length, MAX_ERROR_LINE_CHARS);
});

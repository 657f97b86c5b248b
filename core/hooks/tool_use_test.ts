import assert from "node:assert/strict";
import fc from "fast-check";
import {
  detectFailure,
  firstErrorLine,
  isOwnTool,
  MAX_ERROR_LINE,
  toolUseBody,
} from "./tool_use.ts";

Deno.test("Kiro execute_bash: exit_status is a string and success stays true on failure", () => {
  const failed = detectFailure({
    tool_name: "execute_bash",
    tool_input: { command: "deno test" },
    tool_response: {
      success: true,
      result: [{
        exit_status: "1",
        stdout: "running 2 tests\n",
        stderr: "error: RangeError: bad day: 29\n  at x",
      }],
    },
  });
  assert.deepEqual(failed, { failed: true, error: "error: RangeError: bad day: 29" });
  const ok = detectFailure({
    tool_name: "execute_bash",
    tool_input: {},
    tool_response: {
      success: true,
      result: [{ exit_status: "0", stdout: "error count: 0", stderr: "" }],
    },
  });
  assert.deepEqual(ok, { failed: false });
});

Deno.test("a failing command with empty output still says its exit status", () => {
  const result = detectFailure({
    tool_name: "execute_bash",
    tool_input: {},
    tool_response: { success: true, result: [{ exit_status: "127", stdout: "", stderr: "" }] },
  });
  assert.deepEqual(result, { failed: true, error: "exit status 127" });
});

Deno.test("Kiro success:false with an error list is a failure", () => {
  const result = detectFailure({
    tool_name: "fs_read",
    tool_input: {},
    tool_response: { success: false, error: ["Failed to read file: No such file (os error 2)"] },
  });
  assert.deepEqual(result, {
    failed: true,
    error: "Failed to read file: No such file (os error 2)",
  });
});

Deno.test("a failed test run keeps the assertion line, not the runner's summary", () => {
  const run = (stdout: string, stderr = "") =>
    detectFailure({
      tool_name: "execute_bash",
      tool_input: { command: "npm test" },
      tool_response: { success: true, result: [{ exit_status: "1", stdout, stderr }] },
    }).error;
  // Deno: the summary goes to stderr, the assertion to stdout.
  assert.equal(
    run(
      "running 1 test from ./cart_test.ts\ntotal ... FAILED (2ms)\n\n ERRORS \n\ntotal => ./cart_test.ts:3:6\nerror: AssertionError: Values are not equal.\n\nFAILED | 0 passed | 1 failed (4ms)",
      "error: Test failed",
    ),
    "error: AssertionError: Values are not equal.",
  );
  // Vitest / chai.
  assert.equal(
    run(
      " FAIL  test/cart/total.test.ts > total > adds tax\nAssertionError: expected 3 to equal 4\n ❯ test/cart/total.test.ts:7:22\n Test Files  1 failed (1)\n      Tests  1 failed (1)",
    ),
    "AssertionError: expected 3 to equal 4",
  );
  // Jest: Expected and Received together.
  assert.equal(
    run(
      "FAIL src/cart.test.js\n  ● total › adds tax\n    expect(received).toBe(expected) // Object.is equality\n    Expected: 4\n    Received: 3\nTests:       1 failed, 1 total",
    ),
    "Expected: 4 Received: 3",
  );
  // node:test with assert.equal.
  assert.equal(
    run(
      "not ok 1 - total\n  ---\n  error: |-\n    Expected values to be strictly equal:\n\n    3 !== 4\n  code: 'ERR_ASSERTION'\n# fail 1",
    ),
    "Expected values to be strictly equal:",
  );
});

Deno.test("IDE prose: a non-zero Exit Code is a failure, Exit Code 0 is not", () => {
  assert.deepEqual(
    detectFailure({
      tool_name: "executeBash",
      tool_input: {},
      tool_response: "Output: parses a leap day ... FAILED\nerror: bad day\nExit Code: 1",
    }),
    // The error, not the runner's "... FAILED" summary line.
    { failed: true, error: "error: bad day" },
  );
  assert.equal(
    detectFailure({
      tool_name: "executeBash",
      tool_input: {},
      tool_response: "Output: ok\nExit Code: 0",
    })
      .failed,
    false,
  );
  assert.equal(
    detectFailure({
      tool_name: "strReplace",
      tool_input: {},
      tool_response: "Replaced text in a.ts",
    }).failed,
    false,
  );
});

Deno.test("an explicit error (Claude Code PostToolUseFailure) wins, and its telling line is kept", () => {
  const result = detectFailure({
    tool_name: "Bash",
    tool_input: {},
    tool_response: { error: "x" },
    error: "Exit code 1\nrunning 2 tests\nerror: RangeError: bad day: 29",
  });
  assert.deepEqual(result, { failed: true, error: "error: RangeError: bad day: 29" });
  assert.equal(firstErrorLine("Exit code 2\nsomething odd"), "Exit code 2");
});

Deno.test("toolSuccess:false (IDE 0.x) marks a failure", () => {
  const body = toolUseBody({
    tool_name: "executeBash",
    tool_input: {},
    tool_response: { result: "boom" },
    success: false,
  });
  assert.deepEqual(body, {
    type: "json",
    data: {
      tool_name: "executeBash",
      tool_input: {},
      tool_response: { result: "boom" },
      failed: true,
      error: "boom",
    },
  });
});

Deno.test("a successful tool use has no failed/error keys", () => {
  const body = toolUseBody({
    tool_name: "Read",
    tool_input: { file_path: "/a" },
    tool_response: { type: "text" },
  });
  assert.deepEqual(body, {
    type: "json",
    data: { tool_name: "Read", tool_input: { file_path: "/a" }, tool_response: { type: "text" } },
  });
});

Deno.test("the memory system's own tools are recognised on every surface", () => {
  assert.ok(isOwnTool("@kiro-learn-memory/search_memory"));
  assert.ok(isOwnTool("mcp__kiro-learn-memory__save_observation"));
  assert.ok(isOwnTool("mcp__kiro_learn_memory__get_memories"));
  assert.ok(!isOwnTool("execute_bash"));
  assert.ok(!isOwnTool("@git/status"));
});

Deno.test("property: failure detection never throws and error lines stay short", () => {
  fc.assert(
    fc.property(fc.string(), fc.anything(), fc.option(fc.string()), (name, response, error) => {
      const result = detectFailure({
        tool_name: name,
        tool_input: {},
        tool_response: response,
        error: error ?? undefined,
      });
      assert.ok((result.error ?? "").length <= MAX_ERROR_LINE);
    }),
  );
});

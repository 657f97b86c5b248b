import assert from "node:assert/strict";
import fc from "fast-check";
import { newEventId } from "@kiro-learn/core/ids";
import type { EventBody, EventKind, QueueEntry } from "@kiro-learn/core/schemas";
import { RECORD_LIMITS } from "@kiro-learn/core/schemas";
import { bodyArb, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { extractHeuristic } from "./_heuristic.ts";

let seq = 0;
function entry(kind: EventKind, body: EventBody): QueueEntry {
  seq++;
  return {
    seq,
    project_id: "p",
    namespace: TEST_NAMESPACE,
    kind,
    body,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
    surface: "kiro-cli",
    source_event_ids: [newEventId()],
    compacted: false,
    bytes: 10,
  };
}

const tool = (data: Record<string, unknown>) => entry("tool_use", { type: "json", data });

const SESSION = [
  entry("prompt", { type: "text", content: "the date parser test fails on leap years" }),
  tool({
    tool_name: "fs_read",
    tool_input: { operations: [{ mode: "Line", path: "src/date_parser.ts" }] },
  }),
  tool({
    tool_name: "Bash",
    tool_input: { command: "deno test" },
    failed: true,
    error: "Exit code 1\nerror: AssertionError: expected 2024-02-29 to parse",
  }),
  tool({
    tool_name: "Edit",
    tool_input: { file_path: "src/date_parser.ts", old_string: "% 100", new_string: "% 400" },
    tool_response: { success: true },
  }),
  tool({
    tool_name: "Bash",
    tool_input: { command: "deno test" },
    tool_response: { stdout: "ok" },
  }),
  entry("session_summary", { type: "text", content: "Fixed the leap-year rule. Tests pass." }),
];

Deno.test("a bug-fix turn yields error, fix, edit and summary records", () => {
  const records = extractHeuristic(SESSION);
  const byType = (t: string) => records.filter((r) => r.observation_type === t);
  const [error] = byType("error");
  assert.equal(error.title, "Command failed: deno test");
  assert.match(error.summary, /AssertionError: expected 2024-02-29 to parse/);
  const [fix] = byType("discovery");
  assert.equal(fix.title, "deno test passes after editing date_parser.ts");
  assert.deepEqual(fix.facts, ["Edit in src/date_parser.ts: `% 100` → `% 400`"]);
  const [edit] = byType("tool_use");
  assert.equal(edit.title, "Edited date_parser.ts");
  assert.deepEqual(edit.files_touched, ["src/date_parser.ts"]);
  const [summary] = byType("session_summary");
  assert.equal(summary.title, "Fixed the leap-year rule.");
  assert.match(summary.summary, /Fixed the leap-year rule/);
  assert.ok(summary.facts.includes("failed: deno test"));
});

Deno.test("no record repeats the prompt, and lifecycle notes never become memory", () => {
  const records = extractHeuristic([
    ...SESSION,
    entry("note", { type: "text", content: "session ended (other)" }),
    entry("note", { type: "text", content: "session started" }),
  ]);
  for (const r of records) {
    const all = [r.title, r.summary, ...r.facts].join("\n");
    assert.doesNotMatch(all, /the date parser test fails on leap years/, r.title);
    assert.doesNotMatch(all, /session (?:ended|started)/, r.title);
  }
  // A session that only started and ended leaves nothing.
  assert.deepEqual(
    extractHeuristic([
      entry("note", { type: "text", content: "session started" }),
      entry("prompt", { type: "text", content: "hi" }),
      entry("note", { type: "text", content: "session ended (other)" }),
    ]),
    [],
  );
});

Deno.test("it is deterministic", () => {
  assert.deepEqual(extractHeuristic(SESSION), extractHeuristic(SESSION));
});

Deno.test("IDE 0.x prose results count: 'Exit Code: 1' is a failure", () => {
  const records = extractHeuristic([
    tool({
      tool_name: "executeBash",
      tool_input: { command: "npm test" },
      tool_response: "Output: FAIL src/a.test.ts\nExit Code: 1",
    }),
  ]);
  assert.equal(records[0].observation_type, "error");
  assert.match(records[0].summary, /FAIL src\/a.test.ts/);
});

Deno.test("never throws, and every record respects the limits, on any input", () => {
  const kinds = fc.constantFrom<EventKind>("prompt", "tool_use", "session_summary", "note");
  fc.assert(fc.property(fc.array(fc.tuple(kinds, bodyArb()), { maxLength: 12 }), (items) => {
    for (const r of extractHeuristic(items.map(([k, b]) => entry(k, b)))) {
      assert.ok(r.title.length >= 1 && r.title.length <= RECORD_LIMITS.title);
      assert.ok(r.summary.length >= 1 && r.summary.length <= RECORD_LIMITS.summary);
      assert.ok(r.facts.every((f) => f.length >= 1 && f.length <= RECORD_LIMITS.fact));
      assert.ok(r.files_touched.length <= RECORD_LIMITS.files);
    }
  }));
});

// Bodies exactly as the shims record them (shims/kiro_ide.ts and shims/kiro_cli.ts).
const IDE0_SESSION = [
  entry("prompt", { type: "text", content: "add tax to the cart total" }),
  tool({
    tool_name: "fsWrite",
    tool_input: {},
    tool_response: {
      result: "Created the /home/ada/shop/test/cart/total.test.ts file.",
      success: true,
    },
  }),
  tool({
    tool_name: "executeBash",
    tool_input: {},
    tool_response: {
      result: "Output: \n> shop@1.0.0 test\n> vitest run\n\n FAIL  test/cart/total.test.ts > " +
        "total > adds tax\nAssertionError: expected 3 to equal 4\n ❯ test/cart/total.test.ts:7:22" +
        "\n\n Test Files  1 failed (1)\n      Tests  1 failed (1)\nExit Code: 1",
      success: true,
    },
    failed: true,
    error: "FAIL  test/cart/total.test.ts > total > adds tax",
  }),
  tool({
    tool_name: "strReplace",
    tool_input: {},
    tool_response: { result: "Replaced text in src/cart/total.ts", success: true },
  }),
  tool({
    tool_name: "executeBash",
    tool_input: {},
    tool_response: {
      result: "Output: \n Test Files  1 passed (1)\n      Tests  1 passed (1)\nExit Code: 0",
      success: true,
    },
  }),
];

Deno.test("Kiro IDE 0.x session (no tool arguments, prose results) gives error, fix and edit records", () => {
  const records = extractHeuristic(IDE0_SESSION);
  const byType = (t: string) => records.filter((r) => r.observation_type === t);
  const [error] = byType("error");
  assert.equal(error.title, "Command failed: AssertionError: expected 3 to equal 4");
  assert.match(error.summary, /exit status 1: AssertionError: expected 3 to equal 4/);
  const [fix] = byType("discovery");
  assert.equal(fix.title, "Failing command passes after editing total.test.ts and total.ts");
  const [edit] = byType("tool_use");
  assert.equal(edit.title, "Edited total.test.ts and total.ts");
  assert.deepEqual(edit.files_touched, [
    "/home/ada/shop/test/cart/total.test.ts",
    "src/cart/total.ts",
  ]);
  assert.ok(edit.facts.includes("create /home/ada/shop/test/cart/total.test.ts"));
});

Deno.test("Kiro IDE 1.x: 'Created the <path> file.' names the file, never 'the'", () => {
  const [created] = extractHeuristic([
    tool({
      tool_name: "fsWrite",
      tool_input: { text: "import { total } from '../../src/cart/total.ts';" },
      tool_response: "Created the test/cart/total.test.ts file.",
    }),
  ]);
  assert.equal(created.title, "Created total.test.ts");
  assert.deepEqual(created.files_touched, ["test/cart/total.test.ts"]);
  // Prose from a tool the shim could not name (IDE 0.x plain-text payload).
  const [replaced] = extractHeuristic([
    tool({
      tool_name: "unknown",
      tool_input: {},
      tool_response: { result: "Replaced text in src/date_parser.ts" },
    }),
  ]);
  assert.equal(replaced.title, "Edited date_parser.ts");
  // Prose that names no file makes no edit.
  assert.deepEqual(
    extractHeuristic([
      tool({ tool_name: "fsWrite", tool_input: {}, tool_response: "Created the" }),
    ]),
    [],
  );
});

Deno.test("a failed test run is remembered by its assertion line, not the runner's summary", () => {
  const failing = (stdout: string, stderr: string, error: string) =>
    extractHeuristic([tool({
      tool_name: "execute_bash",
      tool_input: { command: "deno test" },
      tool_response: { success: true, result: [{ exit_status: "1", stdout, stderr }] },
      failed: true,
      error,
    })])[0];
  const deno = failing(
    "running 1 test from ./cart_test.ts\ntotal ... FAILED (2ms)\n\n ERRORS \n\ntotal => " +
      "./cart_test.ts:3:6\nerror: AssertionError: Values are not equal.\n\n    [Diff] Actual / " +
      "Expected\n\n-   3\n+   4\n\nFAILED | 0 passed | 1 failed (4ms)",
    "error: Test failed",
    "error: Test failed",
  );
  assert.ok(deno.facts.includes("error: error: AssertionError: Values are not equal."));
  const jest = failing(
    "FAIL src/cart.test.js\n  ● total › adds tax\n\n    expect(received).toBe(expected)\n\n" +
      "    Expected: 4\n    Received: 3\n\nTests:       1 failed, 1 total",
    "",
    "FAIL src/cart.test.js",
  );
  assert.match(jest.summary, /Expected: 4 Received: 3/);
  const node = failing(
    "not ok 1 - total\n  error: 'Expected values to be strictly equal:\\n\\n3 !== 4\\n'\n" +
      "  code: 'ERR_ASSERTION'\n# fail 1",
    "",
    "# fail 1",
  );
  assert.match(node.summary, /Expected values to be strictly equal/);
});

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
  assert.match(error.summary, /leap years/);
  const [fix] = byType("discovery");
  assert.equal(fix.title, "deno test passes after editing date_parser.ts");
  assert.deepEqual(fix.facts, ["Edit in src/date_parser.ts: `% 100` → `% 400`"]);
  const [edit] = byType("tool_use");
  assert.equal(edit.title, "Edited date_parser.ts");
  assert.deepEqual(edit.files_touched, ["src/date_parser.ts"]);
  const [summary] = byType("session_summary");
  assert.equal(summary.title, "Turn: the date parser test fails on leap years");
  assert.match(summary.summary, /Fixed the leap-year rule/);
  assert.ok(summary.facts.includes("failed: deno test"));
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

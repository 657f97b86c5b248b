import assert from "node:assert/strict";
import { newEventId, newRecordId } from "@kiro-learn/core/ids";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import {
  excerpt,
  formatActivity,
  formatFullRecords,
  formatRecordList,
  NO_ACTIVITY_TEXT,
} from "./_format.ts";

function record(overrides: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    record_id: newRecordId(),
    namespace: "/actor/a/project/p/",
    strategy: "mcp_observation",
    title: "Use WAL mode",
    summary: "SQLite runs in WAL mode\nso readers never block the writer.",
    facts: [],
    concepts: [],
    files_touched: [],
    observation_type: "decision",
    source_event_ids: [newEventId()],
    created_at: "2025-01-02T03:04:05.000Z",
    ...overrides,
  };
}

Deno.test("formatRecordList: numbered, typed, with ids and a one-line excerpt", () => {
  const a = record({ concepts: ["sqlite", "wal"], files_touched: ["a", "b", "c", "d", "e", "f"] });
  const b = record({ observation_type: "error", title: "Boom" });
  assert.equal(
    formatRecordList([a, b]),
    `1. [decision] Use WAL mode (${a.record_id})\n` +
      "   SQLite runs in WAL mode so readers never block the writer.\n" +
      "   concepts: sqlite, wal\n" +
      "   files: a, b, c, d, e (+1 more)\n\n" +
      `2. [error] Boom (${b.record_id})\n` +
      "   SQLite runs in WAL mode so readers never block the writer.",
  );
});

Deno.test("excerpt cuts long text with an ellipsis and never splits a pair", () => {
  assert.equal(excerpt("a  b\n c", 10), "a b c");
  assert.equal(excerpt("x".repeat(20), 10), "x".repeat(9) + "…");
  assert.equal(excerpt("x".repeat(8) + "😀😀", 10), "x".repeat(8) + "…");
});

Deno.test("formatFullRecords shows every field and lists the missing ids", () => {
  const r = record({ facts: ["f1"], concepts: ["c1"], files_touched: ["src/x.ts"] });
  const text = formatFullRecords([{ record: r, source_events: [] }], ["mr_MISSING"]);
  for (
    const part of [
      "# Use WAL mode",
      `id: ${r.record_id}`,
      "type: decision",
      "created_at: 2025-01-02T03:04:05.000Z",
      "readers never block",
      "Facts:\n- f1",
      "Concepts: c1",
      "Files:\n- src/x.ts",
      r.source_event_ids[0],
      "Not found in this project: mr_MISSING",
    ]
  ) assert.ok(text.includes(part), part);
});

Deno.test("formatActivity counts summaries and dates each line", () => {
  assert.equal(formatActivity([], 0), NO_ACTIVITY_TEXT);
  const text = formatActivity([record({ observation_type: "session_summary" }), record()], 7);
  assert.match(text, /^Latest 2 of 7 memories, newest first \(1 session summary\):/);
  assert.match(text, /1\. 2025-01-02T03:04:05.000Z \[session_summary\]/);
});

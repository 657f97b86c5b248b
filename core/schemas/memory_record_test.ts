import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRecord, recordArb } from "../testing/mod.ts";
import { MemoryRecordSchema, RECORD_LIMITS } from "./mod.ts";

Deno.test("every generated record round-trips through JSON and the schema unchanged", () => {
  fc.assert(fc.property(recordArb(), (record) => {
    const wire = JSON.parse(JSON.stringify(record));
    assert.deepEqual(MemoryRecordSchema.parse(wire), wire);
  }));
});

Deno.test("record limits are enforced", () => {
  const bad: Record<string, unknown> = {
    record_id: "rec_1",
    title: "x".repeat(RECORD_LIMITS.title + 1),
    summary: "",
    observation_type: "guess",
    strategy: "magic",
    source_event_ids: [],
    facts: ["x".repeat(RECORD_LIMITS.fact + 1)],
  };
  for (const [key, value] of Object.entries(bad)) {
    const result = MemoryRecordSchema.safeParse({ ...makeRecord(), [key]: value });
    assert.equal(result.success, false, key);
  }
});

Deno.test("optional lists default to empty and the type to tool_use (kiro-learn compatible)", () => {
  const { facts: _f, concepts: _c, files_touched: _t, observation_type: _o, ...bare } =
    makeRecord();
  const parsed = MemoryRecordSchema.parse(bare);
  assert.deepEqual(parsed.facts, []);
  assert.equal(parsed.observation_type, "tool_use");
});

Deno.test("a title's escape sequences are taken out: ESC, BEL and the C1 controls never stay", () => {
  const parsed = MemoryRecordSchema.parse(
    makeRecord({ title: "\x1b]0;owned\x07Fix\x1b[2J the\u009b parser\r\n" }),
  );
  assert.equal(parsed.title, " ]0;owned Fix [2J the  parser  ");
});

import assert from "node:assert/strict";
import { emptyCounts, tally } from "./_save_counts.ts";

Deno.test("tally: added, already present (409 or stored:false), forgotten (410), refused with why", () => {
  const counts = emptyCounts();
  tally(counts, { status: 200, body: { stored: true } }, { id: "a" });
  tally(counts, { status: 200, body: { stored: false } }, { id: "b" });
  tally(counts, { status: 409, body: { error: "conflict" } }, { id: "c" });
  tally(counts, { status: 410, body: { error: "gone" } }, { id: "d" });
  tally(counts, { status: 400, body: { error: "validation failed", details: "x" } }, { id: "e" });
  assert.deepEqual(counts, {
    added: 1,
    present: 2,
    forgotten: 1,
    rejected: [{ id: "e", reason: '400 validation failed "x"' }],
  });
});

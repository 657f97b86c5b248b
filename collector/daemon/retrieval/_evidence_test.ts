import assert from "node:assert/strict";
import { makeRecord } from "@kiro-learn/core/testing";
import { evidenceKey, firstOfEachEvidence } from "./_evidence.ts";

Deno.test("evidenceKey: title case, outer spaces and file order do not matter; files do", () => {
  const a = makeRecord({ title: "It printed hi.", files_touched: ["b.ts", "a.ts"] });
  const b = makeRecord({ title: " it printed HI. ", files_touched: ["a.ts", "b.ts"] });
  const c = makeRecord({ title: "It printed hi.", files_touched: ["a.ts"] });
  assert.equal(evidenceKey(a), evidenceKey(b));
  assert.notEqual(evidenceKey(a), evidenceKey(c));
});

Deno.test("firstOfEachEvidence keeps the first of each, in order, up to the limit", () => {
  const records = [
    makeRecord({ title: "one" }),
    makeRecord({ title: "One" }),
    makeRecord({ title: "two" }),
    makeRecord({ title: "three" }),
  ];
  const ids = (rs: typeof records) => rs.map((r) => r.record_id);
  const all = firstOfEachEvidence(records, { record: (r) => r });
  assert.deepEqual(ids(all), ids([records[0], records[2], records[3]]));
  const two = firstOfEachEvidence(records, { record: (r) => r, limit: 2 });
  assert.deepEqual(ids(two), ids([records[0], records[2]]));
});

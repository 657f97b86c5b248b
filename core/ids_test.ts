import assert from "node:assert/strict";
import { newEventId, newRecordId, RECORD_ID_PATTERN, ULID_PATTERN } from "./ids.ts";

Deno.test("event ids are ULIDs and strictly increasing", () => {
  const ids = Array.from({ length: 2000 }, () => newEventId());
  for (const id of ids) assert.match(id, ULID_PATTERN);
  const sorted = [...ids].sort();
  assert.deepEqual(ids, sorted);
  assert.equal(new Set(ids).size, ids.length);
});

Deno.test("record ids carry the mr_ prefix", () => {
  const id = newRecordId();
  assert.match(id, RECORD_ID_PATTERN);
  assert.ok(!ULID_PATTERN.test(id));
});

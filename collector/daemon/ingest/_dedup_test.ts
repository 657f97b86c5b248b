import assert from "node:assert/strict";
import fc from "fast-check";
import { RecentIds } from "./_dedup.ts";

Deno.test("a repeated id is reported once, capacity is bounded, oldest evicted first", () => {
  const ids = new RecentIds(3);
  assert.equal(ids.add("a"), true);
  assert.equal(ids.add("a"), false);
  ids.add("b");
  ids.add("c");
  ids.add("d");
  assert.equal(ids.size, 3);
  assert.equal(ids.add("a"), true);
  assert.equal(ids.add("d"), false);
});

Deno.test("delete rolls an id back so a retry is not a duplicate", () => {
  const ids = new RecentIds(10);
  ids.add("x");
  ids.delete("x");
  assert.equal(ids.add("x"), true);
});

Deno.test("never holds more than its capacity", () => {
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 20 }),
    fc.array(fc.string({ maxLength: 3 })),
    (cap, adds) => {
      const ids = new RecentIds(cap);
      for (const a of adds) ids.add(a);
      assert.ok(ids.size <= cap);
    },
  ));
});

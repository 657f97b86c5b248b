import assert from "node:assert/strict";
import fc from "fast-check";
import { IdTable } from "./_id_table.ts";

Deno.test("property: slots and lookups equal an array and a Map after any pushes and removals", () => {
  // Short ids from a small alphabet collide and share probe runs; long and non-ASCII ones widen.
  const id = fc.oneof(
    fc.string({ unit: fc.constantFrom("a", "b", "c"), minLength: 1, maxLength: 3 }),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
  );
  const op = fc.oneof(
    { arbitrary: fc.record({ push: id }), weight: 6 },
    { arbitrary: fc.record({ remove: fc.nat() }), weight: 3 },
    { arbitrary: fc.record({ fit: fc.nat({ max: 200 }) }), weight: 1 },
  );
  fc.assert(
    fc.property(fc.array(op, { minLength: 50, maxLength: 400 }), (ops) => {
      const table = new IdTable(4);
      const ids: string[] = [];
      for (const o of ops) {
        if ("push" in o) {
          if (ids.includes(o.push)) continue;
          assert.equal(table.push(o.push), ids.length);
          ids.push(o.push);
        } else if ("remove" in o) {
          if (ids.length === 0) continue;
          const slot = o.remove % ids.length;
          table.removeSwap(slot);
          ids[slot] = ids[ids.length - 1];
          ids.pop();
        } else table.fit(o.fit);
        assert.equal(table.count, ids.length);
        assert.ok(table.capacity >= ids.length);
        ids.forEach((x, slot) => {
          assert.equal(table.idAt(slot), x);
          assert.equal(table.slotOf(x), slot);
        });
      }
      for (const x of ["zz", "a".repeat(70), "é"]) {
        if (!ids.includes(x)) assert.equal(table.slotOf(x), -1);
      }
    }),
    { numRuns: 200 },
  );
});

Deno.test("100k record ids fit in about 5 MB, freed at once by release", () => {
  const before = Deno.memoryUsage().external;
  const table = new IdTable(112_500);
  for (let i = 0; i < 100_000; i++) {
    table.push(`mr_01M8APEBF0PP4RASYZZK${String(i).padStart(6, "0")}`);
  }
  assert.equal(table.slotOf("mr_01M8APEBF0PP4RASYZZK054321"), 54_321);
  const held = Deno.memoryUsage().external - before;
  assert.ok(held <= 5.5e6, `held ${held} bytes`);
  table.release();
  assert.ok(Deno.memoryUsage().external - before <= 0.1 * held, "released at once");
});

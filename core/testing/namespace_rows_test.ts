import assert from "node:assert/strict";
import { openSqliteStorage } from "../storage/mod.ts";
import { addRows, countNamespaceRows, NO_ROWS, seedNamespace } from "./namespace_rows.ts";

Deno.test("seedNamespace writes every kind of row, and only into its namespace", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kl_seed_" });
  const storage = openSqliteStorage(`${dir}/kiro-learn.db`);
  try {
    const target = { namespace: `/actor/t/project/${"c".repeat(64)}/`, projectId: "c".repeat(64) };
    const seeded = await seedNamespace(storage, { ...target, projectPath: "/srv/app" });
    const rows = countNamespaceRows(storage.db, target);
    for (const [key, value] of Object.entries(rows)) assert.ok(value > 0, key);
    assert.equal(rows.records, seeded.recordIds.length);
    assert.equal(rows.events, seeded.eventIds.length);
    const elsewhere = {
      namespace: `/actor/t/project/${"d".repeat(64)}/`,
      projectId: "d".repeat(64),
    };
    assert.deepEqual(countNamespaceRows(storage.db, elsewhere), NO_ROWS);
    assert.deepEqual(addRows(rows, NO_ROWS), rows);
    assert.equal(addRows(rows, rows).events, 2 * rows.events);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

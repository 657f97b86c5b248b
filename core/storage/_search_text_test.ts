// The code-aware search text the storage derives and indexes (migration 5, searchCandidates).
import assert from "node:assert/strict";
import { makeRecord, TEST_NAMESPACE } from "../testing/mod.ts";
import { openSqliteStorage } from "./mod.ts";

async function withDb<T>(fn: (path: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir();
  try {
    return await fn(`${dir}/db.sqlite`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("changed paths and camelCase parts are searchable, with per-column BM25", async () => {
  await withDb(async (path) => {
    const storage = openSqliteStorage(path);
    const byPath = makeRecord({
      title: "speed up the hot loop",
      summary: "nothing about the file here",
      files_touched: ["lib/netdev-dpdk.c"],
    });
    const byCamel = makeRecord({ title: "getUserById returns stale rows", summary: "cache" });
    await storage.putRecord(byPath);
    await storage.putRecord(byCamel);
    const files = await storage.searchCandidates(TEST_NAMESPACE, "netdev-dpdk crash", {
      limit: 5,
    });
    assert.equal(files.candidates[0].record.record_id, byPath.record_id);
    assert.ok(files.candidates[0].bm25Files > 0);
    assert.equal(files.candidates[0].bm25Title, 0);
    assert.ok(files.corpus >= 2);
    assert.ok(files.terms.some((t) => t.term === "netdev" && t.idf > 0));
    const camel = await storage.searchCandidates(TEST_NAMESPACE, "user by id", { limit: 5 });
    assert.equal(camel.candidates[0].record.record_id, byCamel.record_id);
    storage.close();
  });
});

Deno.test("rows of an older search-text version are re-derived when the storage opens", async () => {
  await withDb(async (path) => {
    const storage = openSqliteStorage(path);
    const record = makeRecord({ title: "a title", files_touched: ["src/payments/retry.ts"] });
    await storage.putRecord(record);
    // As a database written before migration 5's text existed would hold it.
    storage.db.prepare(
      "UPDATE memory_records SET files_text = '', code_text = '', search_version = 0",
    ).run();
    assert.equal(
      (await storage.searchCandidates(TEST_NAMESPACE, "payments", { limit: 5 }))
        .candidates.length,
      0,
    );
    storage.close();
    const reopened = openSqliteStorage(path);
    const hits = await reopened.searchCandidates(TEST_NAMESPACE, "payments", { limit: 5 });
    assert.equal(hits.candidates[0]?.record.record_id, record.record_id);
    reopened.close();
  });
});

Deno.test("candidates carry their namespace's newest record time, not another namespace's", async () => {
  await withDb(async (path) => {
    const storage = openSqliteStorage(path);
    await storage.putRecord(
      makeRecord({ title: "payments retry", created_at: "2024-01-01T00:00:00.000Z" }),
    );
    // Newer, matching nothing, and so not a candidate: the namespace's "now" all the same.
    await storage.putRecord(
      makeRecord({ title: "unrelated", created_at: "2024-05-01T00:00:00.000Z" }),
    );
    await storage.putRecord(
      makeRecord({
        title: "payments elsewhere",
        namespace: `/actor/other/project/${"b".repeat(64)}/`,
        created_at: "2025-01-01T00:00:00.000Z",
      }),
    );
    const found = await storage.searchCandidates(TEST_NAMESPACE, "payments", { limit: 5 });
    assert.equal(found.candidates.length, 1);
    assert.equal(found.newest, "2024-05-01T00:00:00.000Z");
    storage.close();
  });
});

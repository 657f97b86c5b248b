// The LIKE fallback of lexical search: when the FTS5 index cannot be read, search still answers
// (availability over ranking). The index is made unreadable the way a damaged file would be: the
// FTS5 leaf blocks of a scratch database are overwritten, so every MATCH fails.
import assert from "node:assert/strict";
import { DatabaseSync, type DatabaseSyncOptions } from "node:sqlite";
import type { MemoryRecord } from "../schemas/mod.ts";
import { makeRecord, TEST_NAMESPACE } from "../testing/mod.ts";
import { openSqliteStorage } from "./sqlite.ts";

const OTHER_NAMESPACE = `/actor/tester/project/${"b".repeat(64)}/`;

/** A scratch database holding `records`, whose FTS5 index is then corrupted. */
async function corruptedStore(records: MemoryRecord[]): Promise<{ path: string; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-like-" });
  const path = `${dir}/kiro-learn.db`;
  const storage = openSqliteStorage(path);
  try {
    for (const record of records) await storage.putRecord(record);
  } finally {
    storage.close();
  }
  // node:sqlite opens in defensive mode, which forbids writing FTS5 shadow tables; the option
  // that turns it off is missing from the bundled type definitions.
  const db = new DatabaseSync(path, { defensive: false } as DatabaseSyncOptions);
  try {
    db.exec("UPDATE memory_records_fts_data SET block = x'ffffffff' WHERE id > 10");
    assert.throws(
      () =>
        db.prepare("SELECT rowid FROM memory_records_fts WHERE memory_records_fts MATCH 'sqlite'")
          .all(),
      /corrupt/i,
      "the FTS5 index must be unreadable, or this test does not reach the fallback",
    );
  } finally {
    db.close();
  }
  return { path, dir };
}

function at(minute: number): string {
  return new Date(Date.UTC(2025, 0, 1, 12, minute)).toISOString();
}

Deno.test("with the FTS5 index unreadable, lexical search falls back to LIKE", async (t) => {
  const records = [
    makeRecord({
      title: "Websocket reconnect",
      summary: "Backoff with jitter.",
      created_at: at(1),
    }),
    makeRecord({
      title: "SQLite WAL",
      summary: "Checkpoint after the websocket burst.",
      created_at: at(2),
    }),
    makeRecord({ title: "Parser fix", summary: "snake_case keys are kept.", created_at: at(3) }),
    makeRecord({
      title: "Parser note",
      summary: "snakeXcase is not a key style.",
      created_at: at(4),
    }),
    makeRecord({ title: "Cache", summary: "Nothing about sockets here?", created_at: at(5) }),
    makeRecord({
      namespace: OTHER_NAMESPACE,
      title: "Websocket in another project",
      summary: "Must not leak across namespaces.",
      created_at: at(6),
    }),
  ];
  const { path, dir } = await corruptedStore(records);
  const storage = openSqliteStorage(path);
  const titles = async (query: string, limit = 10) =>
    (await storage.searchLexical(TEST_NAMESPACE, query, { limit })).map((h) => h.record.title);
  try {
    await t.step(
      "substrings of title or summary match, newest first, in the namespace",
      async () => {
        // "sock" is no FTS5 term of any record: only a substring search finds these.
        assert.deepEqual(await titles("sock"), ["Cache", "SQLite WAL", "Websocket reconnect"]);
        assert.deepEqual(await titles("WEBSOCKET"), ["SQLite WAL", "Websocket reconnect"]);
      },
    );

    await t.step("any of several terms matches", async () => {
      assert.deepEqual(await titles("jitter checkpoint"), ["SQLite WAL", "Websocket reconnect"]);
    });

    await t.step("scores follow the order and the limit holds", async () => {
      const hits = await storage.searchLexical(TEST_NAMESPACE, "sock", { limit: 2 });
      assert.deepEqual(hits.map((h) => h.record.title), ["Cache", "SQLite WAL"]);
      assert.deepEqual(hits.map((h) => h.score), [1, 1 / 2]);
      assert.deepEqual(hits[0].record, records[4], "the record comes back whole");
    });

    await t.step("LIKE wildcards in the query are literal", async () => {
      assert.deepEqual(await titles("snake_case"), ["Parser fix"]);
      assert.deepEqual(await titles("%"), []);
      assert.deepEqual(await titles("zzz"), []);
    });
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

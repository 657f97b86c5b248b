import assert from "node:assert/strict";
import fc from "fast-check";
import { DatabaseSync } from "node:sqlite";
import { newEventId } from "../ids.ts";
import type { Event } from "../schemas/mod.ts";
import { buildFtsQuery, queryTokens, selectQueryTerms } from "../search/mod.ts";
import { eventArb, makeEvent, makeRecord, TEST_NAMESPACE } from "../testing/mod.ts";
import { migrate, MigrationDriftError, MIGRATIONS } from "./migrations.ts";
import { openSqliteStorage, type SqliteStorage } from "./sqlite.ts";
import {
  EMBEDDINGS_BY_ID_SQL,
  neededCountSql,
  neededIdsSql,
  NEEDS_EMBEDDING,
} from "./_embeddings.ts";
import { DuplicateRecordError } from "./types.ts";

const PROJECT = "a".repeat(64);
const OTHER_NS = `/actor/tester/project/${"b".repeat(64)}/`;

async function withStorage(fn: (s: SqliteStorage, path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/test.db`;
  const storage = openSqliteStorage(path, { home: "/home/tester" });
  try {
    await fn(storage, path);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("pragmas: WAL, synchronous NORMAL, foreign keys, STRICT tables", async () => {
  await withStorage(async (s) => {
    await Promise.resolve();
    const get = (sql: string) => Object.values(s.db.prepare(sql).get()!)[0];
    assert.equal(get("PRAGMA journal_mode"), "wal");
    assert.equal(get("PRAGMA synchronous"), 1);
    assert.equal(get("PRAGMA foreign_keys"), 1);
    const strict = s.db.prepare("SELECT name, strict FROM pragma_table_list WHERE schema='main'")
      .all() as { name: string; strict: number }[];
    for (const t of ["events", "extraction_queue", "memory_records", "retrievals"]) {
      assert.equal(strict.find((r) => r.name === t)?.strict, 1, t);
    }
  });
});

Deno.test("the database and its WAL files are private to their owner (0600)", async () => {
  await withStorage(async (s, path) => {
    await s.ingestEvent(makeEvent(), { project_id: PROJECT, enqueue: true });
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600, file);
    }
  });
});

Deno.test("migrations are idempotent and drift is detected", async () => {
  await withStorage(async (s, path) => {
    await Promise.resolve();
    assert.deepEqual(migrate(s.db), []);
    s.close();
    const reopened = openSqliteStorage(path);
    reopened.close();
    const db = new DatabaseSync(path);
    const edited = MIGRATIONS.map((m) => ({ ...m, sql: m.sql + "\n-- edited" }));
    assert.throws(() => migrate(db, edited), MigrationDriftError);
    assert.throws(() => migrate(db, []), /newer version/);
    db.close();
  });
});

Deno.test("a migration that fails leaves nothing half-applied", async () => {
  await withStorage(async (s) => {
    await Promise.resolve();
    const bad = [...MIGRATIONS, {
      version: MIGRATIONS.length + 1,
      name: "broken",
      sql: "CREATE TABLE x(a); BOGUS;",
    }];
    assert.throws(() => migrate(s.db, bad));
    assert.equal(s.db.prepare("SELECT 1 FROM sqlite_master WHERE name='x'").get(), undefined);
    const versions = s.db.prepare("SELECT version FROM schema_migrations").all();
    assert.equal(versions.length, MIGRATIONS.length);
  });
});

Deno.test("ingest is idempotent on event_id and writes one queue row", async () => {
  await withStorage(async (s) => {
    const event = makeEvent();
    assert.equal(await s.ingestEvent(event, { project_id: PROJECT, enqueue: true }), true);
    assert.equal(await s.ingestEvent(event, { project_id: PROJECT, enqueue: true }), false);
    assert.deepEqual(await s.getEvents([event.event_id]), [event]);
    const queue = await s.snapshotQueue(PROJECT);
    assert.equal(queue.length, 1);
    assert.deepEqual(queue[0].source_event_ids, [event.event_id]);
    assert.deepEqual(queue[0].body, event.body);
  });
});

Deno.test("findSameEvent: the session's event of that kind and body, close in time, is the same one", async () => {
  await withStorage(async (s) => {
    const hooked = makeEvent({
      kind: "prompt",
      body: { type: "text", content: "fix the parser" },
      valid_time: "2026-03-01T10:00:00.000Z",
    });
    await s.ingestEvent(hooked, { project_id: PROJECT, enqueue: true });
    const rebuilt = (at: string, extra: Partial<Event> = {}) =>
      makeEvent({ ...hooked, event_id: newEventId(), valid_time: at, ...extra });
    const window = { windowMs: 5 * 60_000 };
    assert.equal(
      await s.findSameEvent(rebuilt("2026-03-01T10:00:01.500Z"), window),
      hooked.event_id,
    );
    assert.equal(await s.findSameEvent(rebuilt("2026-03-01T11:00:00.000Z"), window), null);
    assert.equal(
      await s.findSameEvent(rebuilt("2026-03-01T10:00:01.000Z", { session_id: "other" }), window),
      null,
    );
    const body = { type: "text" as const, content: "fix the lexer" };
    assert.equal(
      await s.findSameEvent(rebuilt("2026-03-01T10:00:01.000Z", { body }), window),
      null,
    );
    assert.equal(await s.findSameEvent(hooked, window), null, "the event itself is not another");
  });
});

Deno.test("events round-trip exactly through storage", async () => {
  await withStorage(async (s) => {
    await fc.assert(
      fc.asyncProperty(eventArb(), async (event) => {
        const wire = JSON.parse(JSON.stringify(event)) as Event;
        await s.ingestEvent(wire, { project_id: PROJECT, enqueue: false });
        assert.deepEqual((await s.getEvents([wire.event_id]))[0], wire);
      }),
      { numRuns: 60 },
    );
  });
});

Deno.test("snapshot to a watermark, commit deletes exactly the consumed rows", async () => {
  await withStorage(async (s) => {
    for (let i = 0; i < 5; i++) {
      await s.ingestEvent(makeEvent({ kind: "tool_use" }), { project_id: PROJECT, enqueue: true });
    }
    const snap = await s.snapshotQueue(PROJECT);
    const watermark = snap.at(-1)!.seq;
    const late = makeEvent();
    await s.ingestEvent(late, { project_id: PROJECT, enqueue: true });
    const again = await s.snapshotQueue(PROJECT, { maxSeq: watermark });
    assert.deepEqual(again.map((e) => e.seq), snap.map((e) => e.seq));
    await s.commitExtraction({
      consumedSeqs: snap.map((e) => e.seq),
      records: [{ record: makeRecord() }],
    });
    const left = await s.snapshotQueue(PROJECT);
    assert.deepEqual(left.map((e) => e.source_event_ids[0]), [late.event_id]);
  });
});

Deno.test("queue commit is atomic: a failing commit loses nothing and duplicates nothing", async () => {
  await withStorage(async (s) => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        async (events, records, fail) => {
          for (let i = 0; i < events; i++) {
            await s.ingestEvent(makeEvent(), { project_id: PROJECT, enqueue: true });
          }
          const before = await s.snapshotQueue(PROJECT);
          const recordsBefore = (await s.listRecords({ limit: 1, offset: 0 })).total;
          const existing = makeRecord();
          await s.putRecord(existing);
          const batch = Array.from({ length: records }, () => ({ record: makeRecord() }));
          if (fail) batch.push({ record: existing }); // a duplicate id aborts the transaction
          const commit = s.commitExtraction({
            consumedSeqs: before.map((e) => e.seq),
            records: batch,
          });
          if (fail) {
            await assert.rejects(commit, DuplicateRecordError);
            assert.deepEqual(await s.snapshotQueue(PROJECT), before);
            assert.equal((await s.listRecords({ limit: 1, offset: 0 })).total, recordsBefore + 1);
            await s.commitExtraction({ consumedSeqs: before.map((e) => e.seq), records: [] });
          } else {
            await commit;
            assert.equal((await s.snapshotQueue(PROJECT)).length, 0);
            assert.equal(
              (await s.listRecords({ limit: 1, offset: 0 })).total,
              recordsBefore + 1 + records,
            );
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

Deno.test("a process killed inside the commit transaction loses nothing", async () => {
  await withStorage(async (s, path) => {
    for (let i = 0; i < 3; i++) {
      await s.ingestEvent(makeEvent(), { project_id: PROJECT, enqueue: true });
    }
    const before = await s.snapshotQueue(PROJECT);
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("./testdata/crash_mid_commit.ts", import.meta.url).pathname,
        path,
        PROJECT,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("in-transaction")) seen += (await reader.read()).value ?? "";
    child.kill("SIGKILL");
    await child.status;
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    s.close();
    const reopened = openSqliteStorage(path);
    try {
      assert.deepEqual(await reopened.snapshotQueue(PROJECT), before);
      assert.equal((await reopened.listRecords({ limit: 10, offset: 0 })).total, 0);
    } finally {
      reopened.close();
    }
  });
});

Deno.test("compaction replacement is atomic and refuses vanished rows", async () => {
  await withStorage(async (s) => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const e = makeEvent();
      ids.push(e.event_id);
      await s.ingestEvent(e, { project_id: PROJECT, enqueue: true });
    }
    const snap = await s.snapshotQueue(PROJECT);
    const entry = {
      project_id: PROJECT,
      namespace: TEST_NAMESPACE,
      kind: "session_summary" as const,
      body: { type: "text" as const, content: "compacted" },
      timestamp: snap[1].timestamp,
      surface: "kiro-cli" as const,
      source_event_ids: ids.slice(0, 2),
      compacted: true,
    };
    await s.replaceQueueRows({ removeSeqs: [snap[0].seq, snap[1].seq], entries: [entry] });
    const after = await s.snapshotQueue(PROJECT);
    assert.equal(after.length, 3);
    assert.deepEqual(after.at(-1)!.source_event_ids, ids.slice(0, 2));
    await assert.rejects(
      s.replaceQueueRows({ removeSeqs: [snap[0].seq, snap[2].seq], entries: [entry] }),
      /changed during compaction/,
    );
    assert.equal((await s.snapshotQueue(PROJECT)).length, 3);
  });
});

Deno.test("record ids are unique; delete cascades to FTS and retrieval links", async () => {
  await withStorage(async (s) => {
    const keep = makeRecord({ title: "Keep WAL", summary: "The journal mode is WAL." });
    const drop = makeRecord({ title: "Drop WAL", summary: "Checkpoint the WAL often." });
    await s.putRecord(keep);
    await s.putRecord(drop);
    await assert.rejects(s.putRecord(drop), DuplicateRecordError);
    await s.logRetrieval({
      namespace: TEST_NAMESPACE,
      query: "wal",
      results: [{ record_id: drop.record_id, score: 2 }, { record_id: keep.record_id, score: 1 }],
      latency_ms: 1,
      tokens: 10,
      outcome: "ok",
    });
    assert.equal(await s.deleteRecords([drop.record_id, "mr_missing"]), 1);
    assert.equal(await s.deleteRecords([drop.record_id]), 0);
    const fts = s.db.prepare(
      "SELECT count(*) AS n FROM memory_records_fts WHERE memory_records_fts MATCH 'checkpoint'",
    ).get() as { n: number };
    assert.equal(fts.n, 0);
    const hits = await s.searchLexical(TEST_NAMESPACE, "WAL", { limit: 10 });
    assert.deepEqual(hits.map((h) => h.record.record_id), [keep.record_id]);
    const [retrieval] = await s.listRetrievals({ limit: 1 });
    assert.deepEqual(retrieval.results.map((r) => r.record_id), [keep.record_id]);
  });
});

Deno.test("delete cascade holds for any set of records", async () => {
  await withStorage(async (s) => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
        async (deleteMask) => {
          const records = deleteMask.map((_, i) => makeRecord({ summary: `alpha item${i} beta` }));
          for (const r of records) await s.putRecord(r);
          const gone = records.filter((_, i) => deleteMask[i]).map((r) => r.record_id);
          await s.deleteRecords(gone);
          const hits = await s.searchLexical(TEST_NAMESPACE, "alpha", { limit: 100 });
          const ids = new Set(hits.map((h) => h.record.record_id));
          for (const [i, r] of records.entries()) {
            assert.equal(ids.has(r.record_id), !deleteMask[i]);
          }
          const integrity = s.db.prepare(
            "INSERT INTO memory_records_fts(memory_records_fts) VALUES ('integrity-check')",
          );
          integrity.run();
          await s.deleteRecords(records.map((r) => r.record_id));
        },
      ),
      { numRuns: 30 },
    );
  });
});

Deno.test("search is stemmed, ranked, and isolated to exactly one namespace", async () => {
  await withStorage(async (s) => {
    const a = makeRecord({
      title: "Database migrations",
      summary: "We migrate with numbered files.",
    });
    const b = makeRecord({ title: "Other", summary: "Unrelated text about tests." });
    const c = makeRecord({ namespace: OTHER_NS, title: "Migrations elsewhere", summary: "x" });
    for (const r of [a, b, c]) await s.putRecord(r);
    const hits = await s.searchLexical(TEST_NAMESPACE, "how do we run the migration?", {
      limit: 5,
    });
    assert.deepEqual(hits.map((h) => h.record.record_id), [a.record_id]);
    const like = `/actor/tester/project/${"_".repeat(64)}/`;
    assert.deepEqual(await s.searchLexical(like, "migrations", { limit: 5 }), []);
  });
});

Deno.test("IDF is computed on the stemmed terms the index holds", async () => {
  await withStorage(async (s) => {
    for (let i = 0; i < 20; i++) {
      await s.putRecord(makeRecord({ summary: `running the tests again ${i}` }));
    }
    await s.putRecord(makeRecord({ summary: "a rare migration" }));
    const [running, migrations] = s.termStats(["Running", "migrations,"]);
    assert.deepEqual(running.stems, ["run"]);
    assert.equal(running.df, 20);
    assert.deepEqual(migrations.stems, ["migrat"]);
    assert.equal(migrations.df, 1);
  });
});

Deno.test("no input makes FTS5 throw a syntax error", async () => {
  await withStorage(async (s) => {
    await s.putRecord(makeRecord({ title: "alpha", summary: "beta gamma" }));
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: "binary" }), (query) => {
        const terms = selectQueryTerms(s.termStats(queryTokens(query)), { totalDocs: 1 });
        if (terms.length === 0) return;
        s.db.prepare("SELECT rowid FROM memory_records_fts WHERE memory_records_fts MATCH ?")
          .all(buildFtsQuery(terms));
      }),
      { numRuns: 300 },
    );
  });
});

Deno.test("stats count per namespace and list projects with display names", async () => {
  await withStorage(async (s) => {
    const e = makeEvent({
      source: {
        surface: "kiro-cli",
        version: "1",
        client_id: "h",
        project_path: "/home/tester/app",
      },
    });
    await s.ingestEvent(e, { project_id: PROJECT, enqueue: true });
    await s.putRecord(
      makeRecord({ concepts: ["wal", "WAL", "fts"], observation_type: "decision" }),
    );
    const stats = await s.stats();
    assert.equal(stats.total_events, 1);
    assert.equal(stats.total_memories, 1);
    assert.equal(stats.total_concepts, 2);
    assert.deepEqual(stats.observation_types, { decision: 1 });
    assert.equal(stats.projects[0].display_name, "~/app");
    assert.equal((await s.stats({ namespace: OTHER_NS })).total_events, 0);
  });
});

Deno.test("embeddings: stored with their model, listed per namespace, backfill order", async () => {
  await withStorage(async (s) => {
    const a = makeRecord();
    const b = makeRecord();
    await s.putRecord(a, { embedding: { model: "m1", vector: new Float32Array([1, 0]) } });
    await s.putRecord(b);
    assert.equal((await s.listEmbeddings(TEST_NAMESPACE, { model: "m1" })).length, 1);
    assert.equal((await s.listEmbeddings(TEST_NAMESPACE, { model: "m2" })).length, 0);
    const need = await s.recordsNeedingEmbedding({ model: "m1", limit: 10, maxFailures: 3 });
    assert.deepEqual(need.map((r) => r.record_id), [b.record_id]);
    assert.equal(
      await s.countRecordsNeedingEmbedding({ model: "m1", limit: 10, maxFailures: 3 }),
      1,
    );
    assert.equal(
      await s.countRecordsNeedingEmbedding({ model: "m2", limit: 10, maxFailures: 3 }),
      2,
    );
    assert.equal(
      await s.countRecordsNeedingEmbedding({ model: "m2", limit: 1, maxFailures: 3 }),
      1,
    );
    for (let i = 0; i < 3; i++) await s.markEmbeddingFailed(b.record_id);
    assert.equal(
      (await s.recordsNeedingEmbedding({ model: "m1", limit: 10, maxFailures: 3 })).length,
      0,
    );
    assert.equal(
      await s.countRecordsNeedingEmbedding({ model: "m1", limit: 10, maxFailures: 3 }),
      0,
    );
    assert.equal(
      await s.countRecordsNeedingEmbedding({ model: "m1", limit: 10, maxFailures: 4 }),
      1,
    );
    await s.updateRecord(a.record_id, { summary: "changed" });
    assert.equal((await s.listEmbeddings(TEST_NAMESPACE, { model: "m1" })).length, 0);
    await s.updateRecord(b.record_id, { summary: "edited, so it deserves another try" });
    const retry = await s.recordsNeedingEmbedding({ model: "m1", limit: 10, maxFailures: 3 });
    assert.ok(retry.some((r) => r.record_id === b.record_id), "an edit resets the failure count");
    assert.equal(newEventId().length, 26);
  });
});

Deno.test("embeddings: the backfill takes unembedded records, then other models', from indexes", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kl.db`;
  const s = openSqliteStorage(path);
  try {
    const vector = new Float32Array([1, 0]);
    const at = (i: number) => `2026-01-0${i}T00:00:00.000Z`;
    const none = makeRecord({ created_at: at(3) });
    const failed = makeRecord({ created_at: at(1) });
    const old = makeRecord({ created_at: at(2) });
    const newer = makeRecord({ created_at: at(4) });
    const current = makeRecord({ created_at: at(5) });
    await s.putRecord(none);
    await s.putRecord(failed);
    await s.markEmbeddingFailed(failed.record_id);
    await s.putRecord(old, { embedding: { model: "m0", vector } });
    await s.putRecord(newer, { embedding: { model: "m2", vector } });
    await s.putRecord(current, { embedding: { model: "m1", vector } });
    const next = await s.recordsNeedingEmbedding({ model: "m1", limit: 10, maxFailures: 3 });
    assert.deepEqual(
      next.map((r) => r.record_id),
      [none.record_id, failed.record_id, old.record_id, newer.record_id],
      "no vector (fewest failures first), then other models' vectors; never the current model's",
    );
    assert.deepEqual(next[0], none, "whole records");
    const two = await s.recordsNeedingEmbedding({ model: "m1", limit: 2, maxFailures: 3 });
    assert.deepEqual(two.map((r) => r.record_id), [none.record_id, failed.record_id]);
    assert.equal(
      await s.countRecordsNeedingEmbedding({ model: "m1", limit: 10, maxFailures: 3 }),
      4,
    );
    assert.equal(
      await s.countRecordsNeedingEmbedding({ model: "m1", limit: 3, maxFailures: 3 }),
      3,
    );
    assert.equal(
      await s.countRecordsNeedingEmbedding({ model: "m1", limit: 10, maxFailures: 1 }),
      3,
    );
  } finally {
    s.close();
  }
  // Each part reads one index range: a full scan of the records on the thread that serves
  // ingest took 44-53 ms per backfill batch at 100k records.
  const db = new DatabaseSync(path);
  try {
    for (const part of NEEDS_EMBEDDING) {
      for (const sql of [neededIdsSql(part), neededCountSql(part)]) {
        const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...(part.model ? ["m1"] : []), 3, 10)
          .map((row) => String((row as { detail: string }).detail));
        assert.ok(
          plan.some((d) =>
            /USING (COVERING )?INDEX memory_records_(unembedded|embedding_model)/.test(d)
          ),
          `${sql}: ${plan.join("; ")}`,
        );
        assert.ok(!plan.some((d) => /TEMP B-TREE/.test(d)), `${sql} sorts: ${plan.join("; ")}`);
      }
    }
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("embeddings: several stored in one call, a missing record skipped", async () => {
  await withStorage(async (s) => {
    const a = makeRecord();
    const b = makeRecord();
    await s.putRecord(a);
    await s.putRecord(b);
    await s.markEmbeddingFailed(a.record_id);
    await s.putEmbeddings([
      { record_id: a.record_id, embedding: { model: "m1", vector: new Float32Array([1, 0]) } },
      { record_id: "mr_missing", embedding: { model: "m1", vector: new Float32Array([0, 1]) } },
      { record_id: b.record_id, embedding: { model: "m1", vector: new Float32Array([0, 1]) } },
    ]);
    const listed = await s.listEmbeddings(TEST_NAMESPACE, { model: "m1" });
    assert.deepEqual(
      listed.map((r) => [r.record_id, [...r.vector]]).sort(),
      [[a.record_id, [1, 0]], [b.record_id, [0, 1]]].sort(),
    );
    assert.equal(
      await s.countRecordsNeedingEmbedding({ model: "m1", limit: 10, maxFailures: 1 }),
      0,
    );
    await s.putEmbeddings([]);
  });
});

Deno.test("embeddings: read back by id, only the namespace's and the model's, by the id index", async () => {
  await withStorage(async (s, path) => {
    const a = makeRecord();
    const b = makeRecord();
    const other = makeRecord({ namespace: `${TEST_NAMESPACE}other/` });
    for (const r of [a, b, other]) await s.putRecord(r);
    await s.putEmbeddings([
      { record_id: a.record_id, embedding: { model: "m1", vector: new Float32Array([1, 0]) } },
      { record_id: b.record_id, embedding: { model: "m2", vector: new Float32Array([0, 1]) } },
      { record_id: other.record_id, embedding: { model: "m1", vector: new Float32Array([1, 1]) } },
    ]);
    const ids = [a.record_id, b.record_id, other.record_id, "mr_missing"];
    const got = await s.getEmbeddings(TEST_NAMESPACE, { model: "m1", recordIds: ids });
    assert.deepEqual(got.map((r) => [r.record_id, [...r.vector]]), [[a.record_id, [1, 0]]]);
    assert.deepEqual(await s.getEmbeddings(TEST_NAMESPACE, { model: "m1", recordIds: [] }), []);
    const db = new DatabaseSync(path);
    try {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${EMBEDDINGS_BY_ID_SQL}`)
        .all("[]", TEST_NAMESPACE, "m1")
        .map((row) => String((row as { detail: string }).detail));
      assert.ok(plan.some((d) => /SCAN j/.test(d)), plan.join("; "));
      assert.ok(
        plan.some((d) =>
          /SEARCH m USING INDEX sqlite_autoindex_memory_records_1 \(record_id=\?\)/.test(d)
        ),
        plan.join("; "),
      );
    } finally {
      db.close();
    }
  });
});

Deno.test("embeddings: listed page by page, every row exactly once", async () => {
  await withStorage(async (s) => {
    const stored = new Map<string, number>();
    for (let i = 0; i < 7; i++) {
      const r = makeRecord();
      await s.putRecord(r, { embedding: { model: "m1", vector: new Float32Array([i, 1]) } });
      stored.set(r.record_id, i);
    }
    await s.putRecord(makeRecord(), { embedding: { model: "m2", vector: new Float32Array([1]) } });
    await s.putRecord(makeRecord({ namespace: OTHER_NS }), {
      embedding: { model: "m1", vector: new Float32Array([9, 9]) },
    });
    const seen: string[] = [];
    let after: number | null = 0;
    let pages = 0;
    while (after !== null) {
      const page = await s.listEmbeddingPage(TEST_NAMESPACE, { model: "m1", after, limit: 3 });
      // The first page says how many rows all of them hold (the index sizes its buffer once).
      assert.equal(page.total, after === 0 ? 7 : undefined);
      pages++;
      assert.ok(page.rows.length <= 3);
      for (const row of page.rows) {
        seen.push(row.record_id);
        assert.deepEqual([...row.vector], [stored.get(row.record_id), 1]);
      }
      after = page.next;
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...stored.keys()], "every row once, in insertion order");
  });
});

Deno.test("runs and LLM spend are recorded and summed per day", async () => {
  await withStorage(async (s) => {
    const id = await s.recordRun({
      project_id: PROJECT,
      namespace: TEST_NAMESPACE,
      started_at: new Date().toISOString(),
      duration_ms: 12,
      strategy: "heuristic",
      outcome: "ok",
      entries: 3,
      chunks: 1,
      records: 2,
      attempts: 0,
      chars_sent: 0,
      chars_received: 0,
      details: { phase_ms: { extract: 1 } },
    });
    const [run] = await s.listRuns({ limit: 1 });
    assert.equal(run.id, id);
    assert.deepEqual(run.details, { phase_ms: { extract: 1 } });
    await s.addLlmUsage({
      project_id: PROJECT,
      purpose: "extract",
      chars_sent: 100,
      chars_received: 10,
    });
    await s.addLlmUsage({
      project_id: "other",
      purpose: "extract",
      chars_sent: 50,
      chars_received: 5,
    });
    const day = new Date().toISOString().slice(0, 10);
    assert.deepEqual(await s.llmUsage({ day }), {
      day,
      calls: 2,
      chars_sent: 150,
      chars_received: 15,
    });
    assert.equal((await s.llmUsage({ day, project_id: PROJECT })).chars_sent, 100);
  });
});

Deno.test("an edit with some fields left out keeps the others", async () => {
  await withStorage(async (s) => {
    const r = makeRecord({ title: "Old", summary: "Body", facts: ["f"] });
    await s.putRecord(r);
    const updated = await s.updateRecord(r.record_id, { title: "New", summary: undefined });
    assert.equal(updated?.title, "New");
    assert.equal(updated?.summary, "Body");
    assert.deepEqual((await s.getRecords([r.record_id]))[0].facts, ["f"]);
    assert.equal(await s.updateRecord("mr_missing", { title: "x" }), null);
  });
});

Deno.test("document frequencies follow a corpus that grew a lot since they were cached", async () => {
  await withStorage(async (s) => {
    await s.putRecord(makeRecord({ summary: "websocket reconnect" }));
    assert.equal(s.termStats(["websocket"], { corpusSize: 1 })[0].df, 1);
    const more = Array.from(
      { length: 300 },
      () => ({ record: makeRecord({ summary: "websocket" }) }),
    );
    await s.commitExtraction({ consumedSeqs: [], records: more });
    assert.equal(s.termStats(["websocket"], { corpusSize: 2 })[0].df, 1, "small growth: cached");
    assert.equal(s.termStats(["websocket"], { corpusSize: 301 })[0].df, 301, "large growth: fresh");
  });
});

Deno.test("a small project stays findable next to a large one sharing its words", async () => {
  await withStorage(async (s) => {
    const small = Array.from(
      { length: 20 },
      (_, i) =>
        makeRecord({
          namespace: OTHER_NS,
          title: `test fix ${i}`,
          summary: "the user test passes",
        }),
    );
    await s.commitExtraction({ consumedSeqs: [], records: small.map((record) => ({ record })) });
    const big = Array.from(
      { length: 12_000 },
      (_, i) => makeRecord({ title: `user test ${i}`, summary: "a test for the user module" }),
    );
    for (let i = 0; i < big.length; i += 2000) {
      await s.commitExtraction({
        consumedSeqs: [],
        records: big.slice(i, i + 2000).map((record) => ({ record })),
      });
    }
    const hits = await s.searchLexical(OTHER_NS, "user test", { limit: 10 });
    assert.equal(hits.length, 10);
    assert.ok(hits.every((h) => h.record.namespace === OTHER_NS));
    const bigHits = await s.searchLexical(TEST_NAMESPACE, "user test", { limit: 10 });
    assert.equal(bigHits.length, 10);
  });
});

Deno.test("a connection without WAL autocheckpoint leaves the WAL to checkpointWal (the team sync's)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kl_wal_" });
  const path = `${dir}/kiro-learn.db`;
  const collector = openSqliteStorage(path, { walAutoCheckpoint: 0 });
  const sync = openSqliteStorage(path);
  try {
    const walSize = () => Deno.statSync(`${path}-wal`).size;
    // Well past SQLite's default threshold of 1000 pages (about 4 MB).
    for (let i = 0; i < 6; i++) {
      await collector.commitExtraction({
        consumedSeqs: [],
        records: Array.from({ length: 500 }, () => ({
          record: makeRecord({ summary: "x".repeat(3000) }),
        })),
      });
    }
    const frames = () =>
      collector.db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as {
        log: number;
        checkpointed: number;
      };
    // No commit copied the log back and started it again (with the default, each commit past
    // the threshold does, and the file stays near 4 MB plus one transaction).
    assert.ok(walSize() > 12_000_000, `the WAL grew: ${walSize()} bytes`);
    sync.checkpointWal();
    const after = frames();
    assert.equal(after.checkpointed, after.log, "checkpointWal copied every frame");
    // The next commit starts the log again from its beginning.
    await collector.putRecord(makeRecord());
    assert.ok(frames().log < 100, "the WAL restarted");
  } finally {
    collector.close();
    sync.close();
    await Deno.remove(dir, { recursive: true });
  }
});

import assert from "node:assert/strict";
import {
  addRows,
  countNamespaceRows,
  makeEvent,
  makeRecord,
  makeRun,
  NO_ROWS,
  seedNamespace,
} from "../testing/mod.ts";
import { openSqliteStorage, type SqliteStorage } from "./sqlite.ts";

const OLD_ID = "1".repeat(64);
const NEW_ID = `git-${"2".repeat(64)}`;
const OTHER_ID = "3".repeat(64);
const OLD = `/actor/alice/project/${OLD_ID}/`;
const NEW = `/actor/alice/project/${NEW_ID}/`;
const OTHER = `/actor/alice/project/${OTHER_ID}/`;
const MOVE = { from: OLD, to: NEW, fromProjectId: OLD_ID, toProjectId: NEW_ID };

async function withDb(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kl_moves_" });
  try {
    await fn(`${dir}/kiro-learn.db`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function withStorage(path: string, fn: (s: SqliteStorage) => Promise<void>): Promise<void> {
  const s = openSqliteStorage(path);
  try {
    await fn(s);
  } finally {
    s.close();
  }
}

const rows = (s: SqliteStorage, namespace: string, projectId: string) =>
  countNamespaceRows(s.db, { namespace, projectId });

Deno.test("a namespace moves whole, once: counts equal, nothing duplicated, reopen changes nothing", async () => {
  await withDb(async (path) => {
    let seeded!: Awaited<ReturnType<typeof seedNamespace>>;
    let before!: ReturnType<typeof rows>;
    let other!: ReturnType<typeof rows>;
    await withStorage(path, async (s) => {
      seeded = await seedNamespace(s, { namespace: OLD, projectId: OLD_ID, projectPath: "/p" });
      await seedNamespace(s, { namespace: OTHER, projectId: OTHER_ID, projectPath: "/q" });
      before = rows(s, OLD, OLD_ID);
      other = rows(s, OTHER, OTHER_ID);
      // Every kind of row is there to move.
      for (const [key, value] of Object.entries(before)) assert.ok(value > 0, key);
      const moved = await s.moveNamespace(MOVE);
      assert.deepEqual(moved, {
        events: before.events,
        queue_rows: before.queue_rows,
        records: before.records,
        retrievals: before.retrievals,
        runs: before.runs,
        merges: before.merges,
        llm_usage_rows: 1,
      });
      assert.deepEqual(rows(s, NEW, NEW_ID), before);
      assert.deepEqual(rows(s, OLD, OLD_ID), NO_ROWS);
      assert.deepEqual(rows(s, OTHER, OTHER_ID), other);
      assert.equal(await s.namespaceMovedTo(OLD), NEW);
      assert.equal(await s.namespaceMovedTo(NEW), null);
    });
    // A second start: the move runs again and finds nothing.
    await withStorage(path, async (s) => {
      assert.deepEqual(await s.moveNamespace(MOVE), {
        events: 0,
        queue_rows: 0,
        records: 0,
        retrievals: 0,
        runs: 0,
        merges: 0,
        llm_usage_rows: 0,
      });
      assert.deepEqual(rows(s, NEW, NEW_ID), before);
      // The project is listed once, under its new namespace.
      const projects = (await s.stats()).projects.map((p) => p.namespace).sort();
      assert.deepEqual(projects, [NEW, OTHER].sort());
      // Records, their embeddings, the index and the merge history answer under the new one.
      const got = await s.getRecords(seeded.recordIds);
      assert.deepEqual(got.map((r) => r.namespace), [NEW, NEW, NEW]);
      assert.equal((await s.listEmbeddings(NEW, { model: "test@1" })).length, 2);
      const hits = await s.searchLexical(NEW, "payments retries", { limit: 5 });
      assert.ok(hits.some((h) => h.record.record_id === seeded.recordIds[0]));
      assert.equal((await s.searchLexical(OLD, "payments retries", { limit: 5 })).length, 0);
      const [merge] = await s.listMerges({ namespace: NEW, limit: 5 });
      assert.deepEqual(merge.replaced.map((r) => r.namespace), [NEW]);
      const [retrieval] = await s.listRetrievals({ namespace: NEW, limit: 5 });
      assert.equal(retrieval.results.length, 2);
      assert.equal((await s.snapshotQueue(NEW_ID)).length, before.queue_rows);
      assert.equal((await s.snapshotQueue(OLD_ID)).length, 0);
      // The forgotten record's tombstone still keeps it out.
      const stillForgotten = s.db.prepare(
        "SELECT count(*) AS n FROM forgotten_records WHERE record_id = ?",
      ).get(seeded.forgottenId) as { n: number };
      assert.equal(stillForgotten.n, 1);
    });
  });
});

Deno.test("moving into a namespace that already has rows merges them (union, no duplicates)", async () => {
  await withDb(async (path) => {
    await withStorage(path, async (s) => {
      await seedNamespace(s, { namespace: OLD, projectId: OLD_ID });
      await seedNamespace(s, { namespace: NEW, projectId: NEW_ID });
      const sum = addRows(rows(s, OLD, OLD_ID), rows(s, NEW, NEW_ID));
      await s.moveNamespace(MOVE);
      const after = rows(s, NEW, NEW_ID);
      assert.deepEqual(after, sum);
      // Same day and purpose: the two usage rows became one.
      const usage = s.db.prepare("SELECT count(*) AS n FROM llm_usage WHERE project_id = ?")
        .get(NEW_ID) as { n: number };
      assert.equal(usage.n, 1);
    });
  });
});

Deno.test("writes under a moved namespace land in the new one, whatever writes them", async () => {
  await withDb(async (path) => {
    await withStorage(path, async (s) => {
      await seedNamespace(s, { namespace: OLD, projectId: OLD_ID });
      await s.moveNamespace(MOVE);
      const before = rows(s, NEW, NEW_ID);
      // A spooled event from before the move, an extraction run that began before it, its
      // records, a retrieval and its LLM spend: all still say the old namespace.
      const late = makeEvent({ namespace: OLD });
      assert.equal(await s.ingestEvent(late, { project_id: OLD_ID, enqueue: true }), true);
      const [queued] = await s.snapshotQueue(NEW_ID, { maxSeq: Number.MAX_SAFE_INTEGER }).then(
        (q) => q.filter((e) => e.source_event_ids.includes(late.event_id)),
      );
      assert.equal(queued.namespace, NEW);
      const record = makeRecord({ namespace: OLD });
      await s.commitExtraction({ consumedSeqs: [queued.seq], records: [{ record }] });
      const summary = makeRecord({ namespace: OLD });
      const replaced = makeRecord({ namespace: OLD });
      await s.putRecord(replaced);
      await s.commitReconciliation({
        consumedSeqs: [],
        put: [{ record: summary }],
        deleteIds: [replaced.record_id],
        merges: [{ summary_id: summary.record_id, replaced: [replaced] }],
      });
      await s.logRetrieval({
        namespace: OLD,
        query: "q",
        results: [{ record_id: record.record_id, score: 1 }],
        latency_ms: 1,
        tokens: 1,
        outcome: "ok",
      });
      await s.recordRun(makeRun({ project_id: OLD_ID, namespace: OLD }));
      await s.addLlmUsage({
        project_id: OLD_ID,
        purpose: "extract",
        chars_sent: 1,
        chars_received: 1,
      });
      assert.deepEqual(rows(s, OLD, OLD_ID), NO_ROWS);
      const after = rows(s, NEW, NEW_ID);
      assert.deepEqual(after, {
        ...before,
        events: before.events + 1,
        records: before.records + 2,
        retrievals: before.retrievals + 1,
        retrieval_links: before.retrieval_links + 1,
        runs: before.runs + 1,
        merges: before.merges + 1,
        llm_calls: before.llm_calls + 1,
      });
      const [merge] = await s.listMerges({ summary_id: summary.record_id, limit: 1 });
      assert.equal(merge.namespace, NEW);
      assert.deepEqual(merge.replaced.map((r) => r.namespace), [NEW]);
      const [stored] = await s.getEvents([late.event_id]);
      assert.equal(stored.namespace, NEW);
    });
  });
});

Deno.test("an interrupted move leaves everything where it was, and the next one completes", async () => {
  await withDb(async (path) => {
    await withStorage(path, async (s) => {
      await seedNamespace(s, { namespace: OLD, projectId: OLD_ID });
      const before = rows(s, OLD, OLD_ID);
      // Fail the transaction after events, queue and records have moved (retrievals come next).
      s.db.exec(`CREATE TEMP TRIGGER interrupt BEFORE UPDATE OF namespace ON retrievals
        BEGIN SELECT RAISE(ABORT, 'interrupted'); END`);
      await assert.rejects(s.moveNamespace(MOVE), /interrupted/);
      assert.deepEqual(rows(s, OLD, OLD_ID), before);
      assert.deepEqual(rows(s, NEW, NEW_ID), NO_ROWS);
      assert.equal(await s.namespaceMovedTo(OLD), null);
      s.db.exec("DROP TRIGGER temp.interrupt");
      await s.moveNamespace(MOVE);
      assert.deepEqual(rows(s, NEW, NEW_ID), before);
    });
  });
});

Deno.test("a move onto itself or into a moved namespace is refused", async () => {
  await withDb(async (path) => {
    await withStorage(path, async (s) => {
      await assert.rejects(
        s.moveNamespace({ ...MOVE, to: OLD, toProjectId: OLD_ID }),
        /onto itself/,
      );
      await seedNamespace(s, { namespace: OLD, projectId: OLD_ID });
      await s.moveNamespace(MOVE);
      await assert.rejects(
        s.moveNamespace({ from: OTHER, to: OLD, fromProjectId: OTHER_ID, toProjectId: OLD_ID }),
        /was itself moved/,
      );
    });
  });
});

Deno.test("an empty namespace is not recorded as moved", async () => {
  await withDb(async (path) => {
    await withStorage(path, async (s) => {
      const moved = await s.moveNamespace(MOVE);
      assert.ok(Object.values(moved).every((n) => n === 0));
      assert.equal(await s.namespaceMovedTo(OLD), null);
      await s.ingestEvent(makeEvent({ namespace: OLD }), { project_id: OLD_ID, enqueue: false });
      assert.equal(rows(s, OLD, OLD_ID).events, 1);
    });
  });
});

Deno.test("a move drops both namespaces' term spaces and keeps the others'", async () => {
  await withDb(async (path) => {
    await withStorage(path, async (s) => {
      await seedNamespace(s, { namespace: OLD, projectId: OLD_ID, projectPath: "/p" });
      const space = (namespace: string) => ({
        namespace,
        version: 1,
        record_count: 1,
        trained_at: "2026-01-01T00:00:00.000Z",
        data: new Uint8Array([1]),
      });
      for (const ns of [OLD, NEW, OTHER]) await s.putTermSpace(space(ns));
      await s.moveNamespace(MOVE);
      assert.deepEqual((await s.listTermSpaces()).map((t) => t.namespace), [OTHER]);
    });
  });
});

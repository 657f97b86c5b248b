// A crash between two chunks' commits (here: the process SIGKILLed while the judge decides
// about chunk 2) neither loses nor duplicates anything: chunk 1 is committed with its queue rows
// gone, chunks 2 and 3 are still queued, and a rerun commits them exactly once.
import assert from "node:assert/strict";
import fc from "fast-check";
import { fileURLToPath } from "node:url";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { openSqliteStorage, type SqliteStorage, StaleCommitError } from "@kiro-learn/core/storage";
import { makeEvent, makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { MODEL, runOnce } from "./testdata/crash_run.ts";

const PROJECT = TEST_NAMESPACE.split("/")[4];
const CHILD = fileURLToPath(new URL("./testdata/crash_run.ts", import.meta.url));

async function seed(
  storage: SqliteStorage,
  events: number,
): Promise<{ neighbour: MemoryRecord; eventIds: string[] }> {
  const neighbour = makeRecord({
    title: "stored neighbour",
    created_at: "2025-01-01T00:00:00.000Z",
  });
  await storage.putRecord(neighbour, {
    embedding: { model: MODEL, vector: Float32Array.of(1, 0, 0) },
  });
  const eventIds: string[] = [];
  for (let i = 0; i < events; i++) {
    // Each body is over the 4 KiB prompt cap, so each event is its own chunk.
    const event = makeEvent({
      kind: "tool_use",
      body: { type: "text", content: `event ${i} ` + "x".repeat(5000) },
    });
    eventIds.push(event.event_id);
    await storage.ingestEvent(event, { project_id: PROJECT, enqueue: true });
  }
  return { neighbour, eventIds };
}

async function records(storage: SqliteStorage): Promise<MemoryRecord[]> {
  return (await storage.listRecords({ limit: 1000, offset: 0 })).items;
}

/** Every event is covered by the records of exactly one chunk outcome: no loss, no duplicate. */
function assertExactlyOnce(all: MemoryRecord[], eventIds: string[]): void {
  const titles = all.map((r) => r.title);
  assert.equal(new Set(titles).size, titles.length, `duplicate records: ${titles.join(", ")}`);
  for (const id of eventIds) {
    assert.ok(all.some((r) => r.source_event_ids.includes(id)), `event ${id} lost`);
  }
}

Deno.test("SIGKILL during chunk 2's reconciliation: chunk 1 committed once, the rest retried once", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/test.db`;
  try {
    let storage = openSqliteStorage(path);
    const { neighbour, eventIds } = await seed(storage, 3);
    storage.close();
    const child = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", CHILD, path, PROJECT, "2"],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(child.signal, "SIGKILL", new TextDecoder().decode(child.stderr));

    storage = openSqliteStorage(path);
    try {
      const after = await records(storage);
      assert.deepEqual(after.map((r) => r.title), ["merged in chunk 1"]);
      assert.equal(after[0].strategy, "llm-reconciled");
      assert.deepEqual(after[0].source_event_ids.slice(0, 1), [eventIds[0]]);
      assert.deepEqual(
        await storage.getRecords([neighbour.record_id]),
        [],
        "merged neighbour gone",
      );
      assert.equal((await storage.listMerges({ limit: 10 })).length, 1);
      const queued = await storage.snapshotQueue(PROJECT);
      assert.deepEqual(queued.map((e) => e.source_event_ids[0]), eventIds.slice(1));

      const rerun = await runOnce(storage, PROJECT);
      assert.ok(rerun.ok);
      const final = await records(storage);
      assert.equal(final.length, 5, final.map((r) => r.title).join(", "));
      assertExactlyOnce(final, eventIds);
      assert.equal((await storage.listMerges({ limit: 10 })).length, 1);
      assert.deepEqual(await storage.snapshotQueue(PROJECT), []);
    } finally {
      storage.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a commit failing at any chunk, then a rerun: nothing lost, nothing duplicated (property)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 1, max: 4 }),
      async (events, failAt) => {
        const dir = await Deno.makeTempDir();
        const storage = openSqliteStorage(`${dir}/test.db`);
        try {
          const { eventIds } = await seed(storage, events);
          // Fault injection: the failAt-th chunk commit throws before anything is written.
          const real = storage.commitReconciliation.bind(storage);
          let calls = 0;
          storage.commitReconciliation = (commit) => {
            calls++;
            if (calls === failAt) {
              return Promise.reject(
                new StaleCommitError({ records: [], seqs: [-1] }),
              );
            }
            return real(commit);
          };
          const first = await runOnce(storage, PROJECT);
          assert.equal(first.ok, failAt > events);
          const committedChunks = Math.min(events, failAt - 1);
          assert.equal((await storage.snapshotQueue(PROJECT)).length, events - committedChunks);
          storage.commitReconciliation = real;
          assert.ok((await runOnce(storage, PROJECT)).ok);
          assertExactlyOnce(await records(storage), eventIds);
          assert.deepEqual(await storage.snapshotQueue(PROJECT), []);
        } finally {
          storage.close();
          await Deno.remove(dir, { recursive: true });
        }
      },
    ),
    { numRuns: 16 },
  );
});

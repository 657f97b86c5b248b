import assert from "node:assert/strict";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { openSqliteStorage, type Storage } from "@kiro-learn/core/storage";
import { makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { Backfill, type BackfillEmbedder } from "./backfill.ts";
import { composeEmbeddingInput } from "./embedder.ts";
import { unitOrZero } from "@kiro-learn/core/search";

/** A fake model: a vector from character codes; throws on texts containing `POISON`. */
function fakeEmbedder(model = "fake@1"): BackfillEmbedder & { calls: number; down: boolean } {
  const e = {
    model_id: model,
    calls: 0,
    down: false,
    embed(texts: string[]): Promise<Float32Array[]> {
      e.calls++;
      if (e.down) return Promise.reject(new Error("model down"));
      if (texts.some((t) => t.includes("POISON"))) return Promise.reject(new Error("bad input"));
      return Promise.resolve(
        texts.map((t) =>
          unitOrZero(Float32Array.from([t.length, t.charCodeAt(0) || 1, 1, model.length]))
        ),
      );
    },
  };
  return e;
}

async function seed(storage: Storage, n: number, extra: Partial<MemoryRecord> = {}) {
  const records: MemoryRecord[] = [];
  for (let i = 0; i < n; i++) {
    const r = makeRecord({
      title: `record ${i}`,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      ...extra,
    });
    await storage.putRecord(r);
    records.push(r);
  }
  return records;
}

async function embeddedIds(storage: Storage, model: string): Promise<string[]> {
  return (await storage.listEmbeddings(TEST_NAMESPACE, { model })).map((r) => r.record_id).sort();
}

Deno.test("embeds every record in batches, stores the vectors and reports progress", async () => {
  using storage = disposable(openSqliteStorage(":memory:"));
  const records = await seed(storage, 12);
  const embedder = fakeEmbedder();
  const seen: string[] = [];
  const backfill = new Backfill({
    storage,
    embedder: () => embedder,
    batchSize: 5,
    onEmbedded: (r, v, model) => {
      assert.equal(v.length, 4);
      assert.equal(model, "fake@1");
      seen.push(r.record_id);
    },
  });
  assert.equal(await backfill.runOnce(), 12);
  assert.equal(embedder.calls, 3);
  assert.deepEqual(await embeddedIds(storage, "fake@1"), records.map((r) => r.record_id).sort());
  assert.deepEqual(seen.sort(), records.map((r) => r.record_id).sort());
  assert.deepEqual(backfill.progress(), {
    model_id: "fake@1",
    pending: 0,
    pending_capped: false,
    done: 12,
    failed: 0,
    state: "idle",
    consecutive_failures: 0,
  });
  assert.equal(await backfill.runOnce(), 0, "nothing left");
});

Deno.test("a poison record is isolated, counted, and given up on after 3 failures", async () => {
  using storage = disposable(openSqliteStorage(":memory:"));
  await seed(storage, 6);
  const [poison] = await seed(storage, 1, { title: "POISON record" });
  const embedder = fakeEmbedder();
  const backfill = new Backfill({ storage, embedder: () => embedder, batchSize: 32 });
  assert.equal(await backfill.runOnce(), 6, "the rest are embedded in the same run");
  assert.equal(backfill.progress().consecutive_failures, 0, "the model is not blamed");
  assert.equal(await backfill.runOnce(), 0);
  assert.equal(await backfill.runOnce(), 0);
  const calls = embedder.calls;
  assert.equal(await backfill.runOnce(), 0);
  assert.equal(embedder.calls, calls, "after 3 failures it is no longer offered");
  const progress = backfill.progress();
  assert.equal(progress.failed, 1);
  assert.equal(progress.pending, 0);
  assert.equal(progress.state, "idle");
  assert.equal((await embeddedIds(storage, "fake@1")).includes(poison.record_id), false);
});

Deno.test("when the model is down no record is blamed; the breaker opens, cools down, recovers", async () => {
  using storage = disposable(openSqliteStorage(":memory:"));
  await seed(storage, 4);
  const embedder = fakeEmbedder();
  embedder.down = true;
  const backfill = new Backfill({
    storage,
    embedder: () => embedder,
    breakerThreshold: 3,
    coolDownMs: 80,
  });
  for (let i = 0; i < 3; i++) assert.equal(await backfill.runOnce(), 0);
  const open = backfill.progress();
  assert.equal(open.state, "cooling");
  assert.equal(open.consecutive_failures, 3);
  assert.ok(open.retry_at);
  assert.match(open.last_error ?? "", /model down/);
  const stillOffered = await storage.recordsNeedingEmbedding({
    model: "fake@1",
    limit: 10,
    maxFailures: 1,
  });
  assert.equal(stillOffered.length, 4, "no failure was counted against any record");
  const calls = embedder.calls;
  assert.equal(await backfill.runOnce(), 0);
  assert.equal(embedder.calls, calls, "an open breaker does not call the model");
  await new Promise((r) => setTimeout(r, 100));
  embedder.down = false;
  assert.equal(await backfill.runOnce(), 4, "half-open: one probing batch, then on");
  assert.equal(backfill.progress().consecutive_failures, 0);
  assert.equal(backfill.progress().state, "idle");
  assert.equal(backfill.progress().last_error, undefined, "a clean backfill clears the error");
});

Deno.test("changing the model re-embeds every record through the backfill", async () => {
  using storage = disposable(openSqliteStorage(":memory:"));
  const records = await seed(storage, 5);
  let embedder = fakeEmbedder("model-a");
  const backfill = new Backfill({ storage, embedder: () => embedder });
  assert.equal(await backfill.runOnce(), 5);
  embedder = fakeEmbedder("model-b");
  assert.equal(await backfill.runOnce(), 5);
  assert.deepEqual(await embeddedIds(storage, "model-b"), records.map((r) => r.record_id).sort());
  assert.deepEqual(await embeddedIds(storage, "model-a"), []);
});

Deno.test("nudged ids are re-embedded first, even when they still hold a vector", async () => {
  using storage = disposable(openSqliteStorage(":memory:"));
  const [a, b] = await seed(storage, 2);
  const embedder = fakeEmbedder();
  const order: string[] = [];
  const backfill = new Backfill({
    storage,
    embedder: () => embedder,
    onEmbedded: (r) => order.push(r.record_id),
  });
  await backfill.runOnce();
  order.length = 0;
  await storage.updateRecord(a.record_id, { title: "an edited, much longer title" });
  backfill.nudge([b.record_id]);
  assert.equal(await backfill.runOnce(), 2);
  assert.deepEqual(order, [b.record_id, a.record_id]);
  const vectors = await storage.listEmbeddings(TEST_NAMESPACE, { model: "fake@1" });
  const stored = vectors.find((r) => r.record_id === a.record_id)!;
  const [edited] = await storage.getRecords([a.record_id]);
  const [expected] = await embedder.embed([composeEmbeddingInput(edited)]);
  assert.deepEqual(stored.vector, expected, "embedded from the edited text");
});

Deno.test("waits while no model is ready", async () => {
  using storage = disposable(openSqliteStorage(":memory:"));
  await seed(storage, 2);
  const backfill = new Backfill({ storage, embedder: () => null });
  assert.equal(await backfill.runOnce(), 0);
  assert.equal(backfill.progress().state, "waiting");
  assert.equal(backfill.progress().model_id, null);
});

Deno.test("runs continuously: records stored later are embedded on a nudge or the interval", async () => {
  using storage = disposable(openSqliteStorage(":memory:"));
  const embedder = fakeEmbedder();
  const nudged = new Backfill({ storage, embedder: () => embedder, intervalMs: 60_000 });
  nudged.start();
  try {
    await new Promise((r) => setTimeout(r, 20));
    const [r1] = await seed(storage, 1);
    nudged.nudge();
    await waitFor(async () => (await embeddedIds(storage, "fake@1")).includes(r1.record_id));
  } finally {
    await nudged.close();
  }
  const timed = new Backfill({ storage, embedder: () => embedder, intervalMs: 30 });
  timed.start();
  try {
    const [r2] = await seed(storage, 1);
    await waitFor(async () => (await embeddedIds(storage, "fake@1")).includes(r2.record_id));
  } finally {
    await timed.close();
  }
  assert.equal(timed.progress().state, "closed");
});

// A hang guard, generous for a loaded machine: the poll ends as soon as the check holds.
async function waitFor(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("condition not met in time");
}

function disposable<T extends { close(): void }>(value: T): T & Disposable {
  return Object.assign(value, { [Symbol.dispose]: () => value.close() });
}

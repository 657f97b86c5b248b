import assert from "node:assert/strict";
import type { Event } from "@kiro-learn/core/schemas";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import { makeEvent } from "@kiro-learn/core/testing";
import { IngestPipeline } from "./pipeline.ts";

async function withStorage(fn: (s: SqliteStorage) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/t.db`);
  try {
    await fn(storage);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const noRetrieval = () => Promise.resolve({ context: "", records: [], latency_ms: 0 });

Deno.test("invalid input is refused with the schema's issues and stores nothing", async () => {
  await withStorage(async (storage) => {
    const pipeline = new IngestPipeline({ storage, retrieve: noRetrieval });
    const outcome = await pipeline.ingest({ ...makeEvent(), kind: "nope" });
    assert.equal(outcome.ok, false);
    assert.equal((await storage.listEvents({ limit: 10 })).total, 0);
  });
});

Deno.test("a duplicate is not acknowledged before the first write is durable", async () => {
  await withStorage(async (storage) => {
    // The first group commit waits on a gate and then fails, like a full disk would.
    const { promise: gate, resolve: open } = Promise.withResolvers<void>();
    const failing = Object.create(storage) as SqliteStorage;
    failing.ingestEvents = async (items: Parameters<SqliteStorage["ingestEvents"]>[0]) => {
      await gate;
      throw new Error(`disk full (${items.length} events)`);
    };
    const pipeline = new IngestPipeline({ storage: failing, retrieve: noRetrieval });
    const event: Event = makeEvent();
    const first = pipeline.ingest(event);
    let duplicateSettled = false;
    const duplicate = pipeline.ingest(event).finally(() => duplicateSettled = true);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(duplicateSettled, false, "the duplicate waits for the first write");
    open();
    await assert.rejects(first, /disk full/);
    await assert.rejects(duplicate, /disk full/);
    // After the failure a retry is a first write again, not a duplicate.
    const retried = await new IngestPipeline({ storage, retrieve: noRetrieval }).ingest(event);
    assert.deepEqual(retried, { ok: true, event_id: event.event_id, stored: true });
  });
});

Deno.test("concurrent events share a group commit and every one is stored", async () => {
  await withStorage(async (storage) => {
    const pipeline = new IngestPipeline({ storage, retrieve: noRetrieval });
    const events = Array.from({ length: 50 }, () => makeEvent());
    const outcomes = await Promise.all(events.map((e) => pipeline.ingest(e)));
    assert.ok(outcomes.every((o) => o.ok && o.stored));
    assert.equal((await storage.listEvents({ limit: 100 })).total, 50);
  });
});

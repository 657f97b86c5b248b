// The spool drain feeding the real ingest pipeline and a real store.
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Event } from "@kiro-learn/core/schemas";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { eventArb, makeEvent } from "@kiro-learn/core/testing";
import { IngestPipeline } from "./pipeline.ts";
import { drainSpool, REJECTED_DIR } from "@kiro-learn/core/spool";

async function tempSpool(): Promise<{ root: string; spool: string }> {
  const root = await Deno.makeTempDir({ prefix: "kiro-learn-drain-" });
  const spool = `${root}/spool`;
  await Deno.mkdir(spool);
  return { root, spool };
}

async function spoolWrite(spool: string, event: Event, query = ""): Promise<string> {
  const path = `${spool}/${event.event_id}.json`;
  await Deno.writeTextFile(path, JSON.stringify({ event, query }) + "\n");
  return path;
}

function names(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
  } catch {
    return [];
  }
}

function realPipeline(dbPath: string) {
  const storage = openSqliteStorage(dbPath);
  const pipeline = new IngestPipeline({
    storage,
    retrieve: () => Promise.resolve({ context: "", records: [], latency_ms: 0 }),
  });
  return { storage, ingest: (event: unknown) => pipeline.ingest(event) };
}

Deno.test("drains oldest first into a real pipeline, deletes each file, re-drains nothing twice", async () => {
  const { root, spool } = await tempSpool();
  const { storage, ingest } = realPipeline(`${root}/kiro-learn.db`);
  try {
    const events = [makeEvent(), makeEvent(), makeEvent()];
    // Written out of order: the drain must still ingest in ULID order.
    for (const event of [...events].reverse()) await spoolWrite(spool, event);
    const order: string[] = [];
    const result = await drainSpool(spool, (event) => {
      order.push((event as Event).event_id);
      return ingest(event);
    });
    assert.deepEqual(result, { ingested: 3, rejected: 0, remaining: 0, pruned: 0 });
    assert.deepEqual(order, events.map((e) => e.event_id));
    assert.deepEqual(names(spool), []);
    assert.equal((await storage.listEvents({ limit: 10 })).total, 3);

    // A crash between ingest and delete leaves the file: draining it again stores nothing new.
    await spoolWrite(spool, events[1]);
    assert.deepEqual(await drainSpool(spool, ingest), {
      ingested: 1,
      rejected: 0,
      remaining: 0,
      pruned: 0,
    });
    assert.equal((await storage.listEvents({ limit: 10 })).total, 3);
  } finally {
    storage.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("invalid files are moved to rejected/, never deleted", async () => {
  const { root, spool } = await tempSpool();
  const { storage, ingest } = realPipeline(`${root}/kiro-learn.db`);
  try {
    const good = makeEvent();
    await spoolWrite(spool, good);
    await Deno.writeTextFile(`${spool}/01ARZ3NDEKTSV4RRFFQ69G5FA0.json`, "{not json");
    await Deno.writeTextFile(
      `${spool}/01ARZ3NDEKTSV4RRFFQ69G5FA1.json`,
      JSON.stringify({ query: "" }),
    );
    await spoolWrite(spool, { ...makeEvent(), namespace: "not-a-namespace" });
    await Deno.writeTextFile(`${spool}/stray.json`, "{}");
    await Deno.writeTextFile(`${spool}/dropped.log`, "a line\n");
    const result = await drainSpool(spool, ingest);
    assert.deepEqual(result, { ingested: 1, rejected: 4, remaining: 0, pruned: 0 });
    assert.deepEqual(names(spool), ["dropped.log", REJECTED_DIR]);
    assert.equal(names(`${spool}/${REJECTED_DIR}`).length, 4);
    assert.equal(
      await Deno.readTextFile(`${spool}/${REJECTED_DIR}/01ARZ3NDEKTSV4RRFFQ69G5FA0.json`),
      "{not json",
    );
  } finally {
    storage.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a failing ingest stops the drain and leaves the rest for later", async () => {
  const { root, spool } = await tempSpool();
  try {
    const events = [makeEvent(), makeEvent(), makeEvent()];
    for (const event of events) await spoolWrite(spool, event);
    let calls = 0;
    const warnings: string[] = [];
    const result = await drainSpool(spool, () => {
      calls++;
      if (calls === 2) return Promise.reject(new Error("database is locked"));
      return Promise.resolve({ ok: true });
    }, { logger: { warn: (msg) => warnings.push(msg), info: () => {} } });
    assert.deepEqual(result, { ingested: 1, rejected: 0, remaining: 2, pruned: 0 });
    assert.deepEqual(names(spool), events.slice(1).map((e) => `${e.event_id}.json`));
    assert.match(warnings[0], /ingest failed/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test(".tmp files: young ones are left alone (a shim may be writing), old ones removed", async () => {
  const { root, spool } = await tempSpool();
  try {
    await Deno.writeTextFile(`${spool}/.01ARZ3NDEKTSV4RRFFQ69G5FAV.tmp`, "partial");
    await drainSpool(spool, () => Promise.resolve({ ok: true }));
    assert.deepEqual(names(spool), [".01ARZ3NDEKTSV4RRFFQ69G5FAV.tmp"]);
    await drainSpool(spool, () => Promise.resolve({ ok: true }), {
      now: () => Date.now() + 61_000,
    });
    assert.deepEqual(names(spool), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("concurrent drains of one dir share a run (no file ingested twice at once)", async () => {
  const { root, spool } = await tempSpool();
  try {
    for (let i = 0; i < 5; i++) await spoolWrite(spool, makeEvent());
    let calls = 0;
    const ingest = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      return { ok: true };
    };
    const [a, b] = await Promise.all([drainSpool(spool, ingest), drainSpool(spool, ingest)]);
    assert.equal(calls, 5);
    assert.deepEqual(a, b);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a missing spool dir drains nothing", async () => {
  assert.deepEqual(
    await drainSpool("/nonexistent/kiro-learn/spool", () => Promise.resolve({ ok: true })),
    {
      ingested: 0,
      rejected: 0,
      remaining: 0,
      pruned: 0,
    },
  );
});

Deno.test("property: every valid spooled event ends up stored exactly once", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(eventArb(), { selector: (e) => e.event_id, maxLength: 8 }),
      async (events) => {
        const { root, spool } = await tempSpool();
        const { storage, ingest } = realPipeline(`${root}/kiro-learn.db`);
        try {
          for (const event of events) await spoolWrite(spool, event);
          const result = await drainSpool(spool, ingest);
          assert.equal(result.ingested + result.rejected, events.length);
          assert.equal(result.rejected, 0);
          assert.equal((await storage.listEvents({ limit: 100 })).total, events.length);
          assert.deepEqual(names(spool), []);
        } finally {
          storage.close();
          await Deno.remove(root, { recursive: true });
        }
      },
    ),
    { numRuns: 20 },
  );
});

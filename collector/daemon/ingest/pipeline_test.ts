import assert from "node:assert/strict";
import type { Event } from "@kiro-learn/core/schemas";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import { countNamespaceRows, makeEvent, NO_ROWS, seedNamespace } from "@kiro-learn/core/testing";
import { buildNamespace, projectIdFromRemote, projectIdFromRoot } from "@kiro-learn/core/project";
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
    failing.namespaceMovedTo = (namespace: string) => storage.namespaceMovedTo(namespace);
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

Deno.test("Kiro CLI 2.x first prompt: the userPromptSubmit that repeats agentSpawn's prompt is stored and answered once", async () => {
  await withStorage(async (storage) => {
    let retrievals = 0;
    const pipeline = new IngestPipeline({
      storage,
      retrieve: () => {
        retrievals++;
        return Promise.resolve({ context: "ctx", records: [], latency_ms: 0 });
      },
      resume: () => Promise.resolve({ context: "resume", records: [], latency_ms: 0 }),
    });
    const at = (seconds: number) => new Date(Date.UTC(2026, 10, 25, 9, 0, seconds)).toISOString();
    const prompt = (content: string, seconds: number, session_id = "kiro-2x") =>
      makeEvent({ session_id, body: { type: "text", content }, valid_time: at(seconds) });
    // agentSpawn: the session start (resume), then the first prompt (retrieve).
    await pipeline.ingest(
      makeEvent({ session_id: "kiro-2x", kind: "note", valid_time: at(0) }),
      { resume: true },
    );
    const first = prompt("why does the date parser reject leap days?", 0);
    const spawned = await pipeline.ingest(first, { retrieve: true });
    assert.ok(spawned.ok && spawned.stored && spawned.retrieval !== undefined);
    // userPromptSubmit with the same prompt, a moment later: not stored, no context again.
    const repeated = await pipeline.ingest(
      prompt("why does the date parser reject leap days?", 1),
      { retrieve: true },
    );
    assert.ok(repeated.ok);
    assert.equal(repeated.stored, false);
    assert.equal(repeated.retrieval, undefined);
    assert.equal(repeated.repeat_of, first.event_id);
    assert.equal(retrievals, 1);
    // Later prompts, even the same words, are the user's own and are stored.
    const again = await pipeline.ingest(
      prompt("why does the date parser reject leap days?", 30),
      { retrieve: true },
    );
    assert.ok(again.ok && again.stored && again.retrieval !== undefined);
    const prompts = (await storage.listEvents({ limit: 10 })).items.filter((e) =>
      e.kind === "prompt"
    );
    assert.equal(prompts.length, 2);
  });
});

Deno.test("a second prompt that differs, comes late, or follows no seen session start is stored", async () => {
  await withStorage(async (storage) => {
    const pipeline = new IngestPipeline({
      storage,
      retrieve: noRetrieval,
      resume: noRetrieval,
    });
    const at = (seconds: number) =>
      new Date(Date.UTC(2026, 10, 25, 9, 0, 0) + seconds * 1000).toISOString();
    const start = (session_id: string) =>
      pipeline.ingest(makeEvent({ session_id, kind: "note", valid_time: at(0) }), { resume: true });
    const prompt = (session_id: string, content: string, seconds: number) =>
      pipeline.ingest(
        makeEvent({ session_id, body: { type: "text", content }, valid_time: at(seconds) }),
      );
    await start("differs");
    await prompt("differs", "fix the parser", 0);
    assert.equal((await prompt("differs", "and the tests", 1) as { stored: boolean }).stored, true);
    await start("late");
    await prompt("late", "fix the parser", 0);
    assert.equal((await prompt("late", "fix the parser", 120) as { stored: boolean }).stored, true);
    await prompt("no-start", "fix the parser", 0);
    assert.equal(
      (await prompt("no-start", "fix the parser", 1) as { stored: boolean }).stored,
      true,
    );
  });
});

Deno.test("the first events under a repository's namespace move the project's old one, once", async () => {
  await withStorage(async (storage) => {
    const path = "/home/alice/code/payments";
    const oldId = projectIdFromRoot(path);
    const newId = projectIdFromRemote("github.com/acme/payments");
    const old = { namespace: buildNamespace("alice", oldId), projectId: oldId };
    const next = { namespace: buildNamespace("alice", newId), projectId: newId };
    await seedNamespace(storage, { ...old, projectPath: path });
    const before = countNamespaceRows(storage.db, old);
    const moves: string[] = [];
    const stored: string[] = [];
    const pipeline = new IngestPipeline({
      storage,
      retrieve: noRetrieval,
      onMoved: (info) => moves.push(`${info.from} -> ${info.to} (${info.moved.records} records)`),
      onStored: (info) => stored.push(info.project_id),
    });
    const source = {
      surface: "claude-code" as const,
      version: "t",
      client_id: "h",
      project_path: path,
    };
    // Concurrent first events of the project: one move between them.
    const outcomes = await Promise.all(
      [1, 2, 3].map(() => pipeline.ingest(makeEvent({ namespace: next.namespace, source }))),
    );
    assert.ok(outcomes.every((o) => o.ok && o.stored));
    assert.deepEqual(moves, [`${old.namespace} -> ${next.namespace} (${before.records} records)`]);
    assert.deepEqual(countNamespaceRows(storage.db, old), NO_ROWS);
    assert.equal(countNamespaceRows(storage.db, next).records, before.records);
    // A pre-upgrade event (spooled) is filed under the new namespace, and extraction hears of
    // the new project id.
    const spooled = makeEvent({ namespace: old.namespace, source });
    assert.deepEqual(await pipeline.ingest(spooled), {
      ok: true,
      event_id: spooled.event_id,
      stored: true,
    });
    assert.equal((await storage.getEvents([spooled.event_id]))[0].namespace, next.namespace);
    assert.deepEqual(stored, [newId, newId, newId, newId]);
    // A fresh process (a restart) finds nothing left to move.
    const restarted = new IngestPipeline({
      storage,
      retrieve: noRetrieval,
      onMoved: (info) => moves.push(info.from),
    });
    await restarted.ingest(makeEvent({ namespace: next.namespace, source }));
    assert.equal(moves.length, 1);
  });
});

Deno.test("a path-derived namespace never moves anything", async () => {
  await withStorage(async (storage) => {
    const path = "/srv/app";
    const ns = buildNamespace("bob", projectIdFromRoot(path));
    let moved = 0;
    const pipeline = new IngestPipeline({ storage, retrieve: noRetrieval, onMoved: () => moved++ });
    const source = {
      surface: "kiro-cli" as const,
      version: "t",
      client_id: "h",
      project_path: path,
    };
    await pipeline.ingest(makeEvent({ namespace: ns, source }));
    assert.equal(moved, 0);
    assert.equal(await storage.namespaceMovedTo(ns), null);
  });
});

Deno.test("events wait while another process holds the write lock past the busy timeout", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/t.db`;
  const storage = openSqliteStorage(path, { busyTimeoutMs: 50 });
  let holder: Deno.ChildProcess | undefined;
  try {
    // Another process (as team sync's own connection, or a CLI command, is) takes SQLite's write
    // lock and keeps it for 20 times the busy timeout.
    holder = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import { DatabaseSync } from "node:sqlite";
        const db = new DatabaseSync(${JSON.stringify(path)});
        db.exec("BEGIN IMMEDIATE");
        console.log("locked");
        await new Promise((r) => setTimeout(r, 1000));
        db.exec("COMMIT");
        db.close();`,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = holder.stdout.getReader();
    const { value } = await reader.read();
    assert.match(new TextDecoder().decode(value), /locked/);
    const pipeline = new IngestPipeline({ storage, retrieve: noRetrieval });
    const event = makeEvent({ kind: "note" });
    const outcome = await pipeline.ingest(event);
    assert.equal(outcome.ok, true, JSON.stringify(outcome));
    assert.equal((await storage.getEvents([event.event_id])).length, 1);
    await reader.cancel();
    assert.equal((await holder.status).success, true);
  } finally {
    await holder?.stdout.cancel().catch(() => {});
    await holder?.status;
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

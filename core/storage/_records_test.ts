// Forget means gone: after forgetRecords, no byte of the record (or, with its sources, of the events
// it came from) is left in the database file, its WAL or the full-text index.
import assert from "node:assert/strict";
import { makeEvent, makeRecord, TEST_NAMESPACE } from "../testing/mod.ts";
import { ForgottenRecordError, openSqliteStorage } from "./mod.ts";

async function bytesContain(dir: string, marker: string): Promise<string[]> {
  const found: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const text = new TextDecoder("utf-8", { fatal: false }).decode(
      await Deno.readFile(`${dir}/${e.name}`),
    );
    if (text.includes(marker)) found.push(e.name);
  }
  return found;
}

Deno.test("a forgotten record and its sources leave no byte in the database, WAL or index", async () => {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/kiro-learn.db`);
  try {
    // Enough other records that the index has several segments to merge.
    for (let i = 0; i < 300; i++) {
      await storage.putRecord(makeRecord({ title: `ordinary record ${i}`, summary: "keep me" }));
    }
    const event = makeEvent({ body: { type: "text", content: "the prompt zebraquartzsource" } });
    // Queued for extraction (the body is copied into the queue) and asked a retrieval (the
    // prompt is kept as the retrieval's query): both are copies forget must reach.
    await storage.ingestEvent(event, { project_id: "p", enqueue: true });
    const other = makeEvent({ body: { type: "text", content: "an unrelated prompt" } });
    await storage.ingestEvent(other, { project_id: "p", enqueue: false });
    await storage.logRetrieval({
      event_id: event.event_id,
      namespace: TEST_NAMESPACE,
      query: "the prompt zebraquartzsource",
      results: [],
      latency_ms: 1,
      tokens: 0,
      outcome: "empty",
    });
    await storage.logRetrieval({
      event_id: other.event_id,
      namespace: TEST_NAMESPACE,
      query: "an unrelated prompt",
      results: [],
      latency_ms: 1,
      tokens: 0,
      outcome: "empty",
    });
    const secret = makeRecord({
      title: "zebraquartzmarker rotated",
      summary: "zebraquartzmarker lives in vault",
      source_event_ids: [event.event_id],
    });
    await storage.putRecord(secret);
    await storage.putRecord(makeRecord({ title: "another one after it" }));
    assert.ok(
      (await bytesContain(dir, "zebraquartzmarker")).length > 0,
      "the marker is on disk first",
    );
    const forgotten = await storage.forgetRecords([secret.record_id], { withSources: true });
    assert.deepEqual(forgotten, { records: 1, events: 1 });
    assert.deepEqual(await bytesContain(dir, "zebraquartzmarker"), []);
    assert.deepEqual(await bytesContain(dir, "zebraquartzsource"), []);
    // The other prompt's retrieval is untouched.
    const kept = await storage.listRetrievals({ limit: 10 });
    assert.deepEqual(kept.map((r) => r.query), ["an unrelated prompt"]);
    // Everything else is still there and searchable.
    assert.equal((await storage.searchLexical(TEST_NAMESPACE, "ordinary", { limit: 5 })).length, 5);
    // Gone for good: the same id is never stored again (an import must not bring it back).
    await assert.rejects(storage.putRecord(secret), ForgottenRecordError);
    assert.deepEqual(await bytesContain(dir, "zebraquartzmarker"), []);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("forgetting an id that is not stored changes nothing: the record can still come in", async () => {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/kiro-learn.db`);
  try {
    // Another machine's record, forgotten here before its export was imported (the CLI says
    // "no memory …", exit 1): the import must still bring it.
    const elsewhere = makeRecord({ title: "a record of another machine" });
    assert.deepEqual(await storage.forgetRecords([elsewhere.record_id]), { records: 0, events: 0 });
    await storage.putRecord(elsewhere);
    assert.equal((await storage.getRecords([elsewhere.record_id])).length, 1);
    // Once it is here, forgetting it is final.
    assert.deepEqual(await storage.forgetRecords([elsewhere.record_id]), { records: 1, events: 0 });
    await assert.rejects(storage.putRecord(elsewhere), ForgottenRecordError);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a record stored by any producer keeps no control character in its title", async () => {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/kiro-learn.db`);
  try {
    // Extraction builds records without the schema: the storage is where every title passes.
    const record = makeRecord({ title: "\x1b]0;owned\x07Deploy\x1b[2J fix\r\n\u009b" });
    await storage.putRecord(record);
    const [stored] = await storage.getRecords([record.record_id]);
    assert.equal(stored.title, " ]0;owned Deploy [2J fix   ");
    assert.equal((await storage.searchLexical(TEST_NAMESPACE, "deploy", { limit: 5 })).length, 1);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

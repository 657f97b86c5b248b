import assert from "node:assert/strict";
import { makeRecord, TEST_NAMESPACE } from "../testing/mod.ts";
import { openSqliteStorage } from "./sqlite.ts";

const OTHER = `/actor/t/project/${"c".repeat(64)}/`;

Deno.test("term spaces: docs page through one namespace; a space is stored, replaced, listed", async () => {
  const storage = openSqliteStorage(":memory:");
  try {
    for (let i = 0; i < 5; i++) {
      await storage.putRecord(makeRecord({
        title: `t${i}`,
        summary: "s",
        facts: ["f"],
        files_touched: ["a.c"],
      }));
    }
    await storage.putRecord(makeRecord({ namespace: OTHER, title: "elsewhere" }));
    const first = await storage.termSpaceDocs(TEST_NAMESPACE, { after: 0, limit: 3 });
    const second = await storage.termSpaceDocs(TEST_NAMESPACE, { after: first.last, limit: 3 });
    assert.deepEqual(
      [...first.docs, ...second.docs].map((d) => d.title),
      ["t0", "t1", "t2", "t3", "t4"],
    );
    assert.deepEqual(first.docs[0], { title: "t0", summary: "s f", files: ["a.c"] });
    assert.equal(
      (await storage.termSpaceDocs(TEST_NAMESPACE, { after: second.last, limit: 3 }))
        .docs.length,
      0,
    );
    assert.equal(await storage.countRecords(TEST_NAMESPACE), 5);
    assert.equal(await storage.countRecords(OTHER), 1);

    assert.equal(await storage.getTermSpace(TEST_NAMESPACE), null);
    const row = {
      namespace: TEST_NAMESPACE,
      version: 1,
      record_count: 5,
      trained_at: "2026-01-01T00:00:00.000Z",
      data: new Uint8Array([1, 2, 3]),
    };
    await storage.putTermSpace(row);
    await storage.putTermSpace({ ...row, record_count: 6, data: new Uint8Array([4, 5]) });
    const stored = await storage.getTermSpace(TEST_NAMESPACE);
    assert.equal(stored?.record_count, 6);
    assert.deepEqual([...stored!.data], [4, 5]);
    assert.equal(await storage.getTermSpace(OTHER), null);
    assert.deepEqual(await storage.listTermSpaces(), [{
      namespace: TEST_NAMESPACE,
      version: 1,
      record_count: 6,
      trained_at: "2026-01-01T00:00:00.000Z",
      bytes: 2,
    }]);
  } finally {
    storage.close();
  }
});

Deno.test("forgetting a record deletes its namespace's stored term space, no other", async () => {
  const storage = openSqliteStorage(":memory:");
  try {
    const mine = makeRecord({ title: "secret" });
    await storage.putRecord(mine);
    await storage.putRecord(makeRecord({ namespace: OTHER, title: "elsewhere" }));
    const row = { version: 1, record_count: 1, trained_at: "2026-01-01T00:00:00.000Z" };
    await storage.putTermSpace({ ...row, namespace: TEST_NAMESPACE, data: new Uint8Array([1]) });
    await storage.putTermSpace({ ...row, namespace: OTHER, data: new Uint8Array([2]) });
    await storage.forgetRecords([mine.record_id]);
    assert.equal(await storage.getTermSpace(TEST_NAMESPACE), null);
    assert.ok(await storage.getTermSpace(OTHER) !== null);
  } finally {
    storage.close();
  }
});

Deno.test("term spaces: `newest` pages through the namespace's newest records only", async () => {
  const storage = openSqliteStorage(":memory:");
  try {
    for (let i = 0; i < 6; i++) {
      await storage.putRecord(makeRecord({ title: `t${i}` }));
      // Another namespace's rows in between must not count towards this one's newest.
      await storage.putRecord(makeRecord({ namespace: OTHER, title: `o${i}` }));
    }
    const first = await storage.termSpaceDocs(TEST_NAMESPACE, { after: 0, limit: 2, newest: 4 });
    const second = await storage.termSpaceDocs(TEST_NAMESPACE, {
      after: first.last,
      limit: 2,
      newest: 4,
    });
    const third = await storage.termSpaceDocs(TEST_NAMESPACE, {
      after: second.last,
      limit: 2,
      newest: 4,
    });
    assert.deepEqual(
      [...first.docs, ...second.docs].map((d) => d.title),
      ["t2", "t3", "t4", "t5"],
    );
    assert.equal(third.docs.length, 0);
    const all = await storage.termSpaceDocs(TEST_NAMESPACE, { after: 0, limit: 10, newest: 10 });
    assert.equal(all.docs.length, 6, "fewer records than `newest`: all of them");
  } finally {
    storage.close();
  }
});

Deno.test("term spaces: not stored when a record was forgotten since the given time", async () => {
  const storage = openSqliteStorage(":memory:");
  try {
    const record = makeRecord({ title: "gone" });
    await storage.putRecord(record);
    const row = {
      namespace: TEST_NAMESPACE,
      version: 1,
      record_count: 1,
      trained_at: "2026-01-01T00:00:00.000Z",
      data: new Uint8Array([1]),
    };
    const before = new Date(Date.now() - 1_000).toISOString();
    assert.equal(await storage.putTermSpace(row, { unlessForgottenSince: before }), true);
    await storage.forgetRecords([record.record_id]);
    assert.equal(await storage.getTermSpace(TEST_NAMESPACE), null, "forget drops the space");
    assert.equal(await storage.putTermSpace(row, { unlessForgottenSince: before }), false);
    assert.equal(await storage.getTermSpace(TEST_NAMESPACE), null);
    const after = new Date(Date.now() + 1_000).toISOString();
    assert.equal(await storage.putTermSpace(row, { unlessForgottenSince: after }), true);
  } finally {
    storage.close();
  }
});

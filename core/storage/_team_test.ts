// The local side of team memory: what the outbox captures, and how pulled changes apply.
import assert from "node:assert/strict";
import { makeRecord, TEST_NAMESPACE } from "../testing/mod.ts";
import { openSqliteStorage, type SqliteStorage, type TeamChange } from "./mod.ts";

const KEY = "a".repeat(64);

async function withStorage(fn: (s: SqliteStorage) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/kiro-learn.db`);
  try {
    await fn(storage);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function change(overrides: Partial<TeamChange> & { record_id: string }): TeamChange {
  return {
    change_seq: 1,
    state: "live",
    body: null,
    superseded_by: null,
    origin_actor: "alice",
    origin_role: "alice",
    origin_client: "m_alice",
    changed_by_role: "alice",
    changed_by_client: "m_alice",
    ...overrides,
  };
}

Deno.test("nothing is captured until a team is configured", async () => {
  await withStorage(async (s) => {
    await s.putRecord(makeRecord());
    assert.equal(s.teamCounts().backlog, 0);
    s.setTeamCapture(true);
    await s.putRecord(makeRecord());
    assert.equal(s.teamCounts().backlog, 1);
    s.setTeamCapture(false);
    assert.equal(s.teamCounts().backlog, 0, "leaving empties the outbox");
  });
});

Deno.test("saves, edits, forgets and merges resolve to what is published", async () => {
  await withStorage(async (s) => {
    const before = makeRecord({ title: "made before sharing" });
    await s.putRecord(before);
    s.setTeamCapture(true);
    assert.equal(s.teamStartProject(KEY), true);
    assert.equal(s.teamStartProject(KEY), false, "existing records are queued once");
    const edited = makeRecord();
    const forgotten = makeRecord();
    const merged = makeRecord();
    for (const r of [edited, forgotten, merged]) await s.putRecord(r);
    await s.updateRecord(edited.record_id, { title: "edited title" });
    await s.forgetRecords([forgotten.record_id]);
    const survivor = makeRecord({ title: "survivor" });
    await s.commitReconciliation({
      consumedSeqs: [],
      put: [{ record: survivor }],
      deleteIds: [merged.record_id],
      merges: [{ summary_id: survivor.record_id, replaced: [merged] }],
    });
    const items = s.teamOutbox({ limit: 100 });
    const kinds = items.map((i) =>
      `${i.record_id === before.record_id ? "before" : i.record_id.slice(-4)}:${i.kind}`
    );
    assert.equal(items[0].record_id, before.record_id);
    assert.ok(items.every((i) => i.project_key === KEY));
    const of = (id: string) => items.filter((i) => i.record_id === id).map((i) => i.kind);
    // A put whose record is gone by now is skipped: its tombstone row follows.
    assert.deepEqual(of(forgotten.record_id), ["skip", "forgotten"], kinds.join(" "));
    assert.deepEqual(of(merged.record_id), ["skip", "merged"]);
    const merge = items.find((i) => i.kind === "merged");
    assert.equal(merge?.kind === "merged" && merge.superseded_by, survivor.record_id);
    const edits = items.filter((i) => i.record_id === edited.record_id);
    assert.deepEqual(edits.map((i) => i.kind === "put" && i.record.title), [
      "edited title",
      "edited title",
    ]);
    s.teamAck(items.map((i) => i.seq));
    assert.equal(s.teamCounts().backlog, 0);
  });
});

Deno.test("pulled changes apply without echo; tombstones win; local edits wait", async () => {
  await withStorage(async (s) => {
    s.setTeamCapture(true);
    const mine = makeRecord({ title: "mine" });
    await s.putRecord(mine);
    s.teamAck(s.teamOutbox({ limit: 10 }).map((i) => i.seq));
    const theirs = makeRecord({ title: "theirs", namespace: TEST_NAMESPACE });
    const { namespace: _, ...body } = theirs;
    const applied = s.teamApply({
      projectKey: KEY,
      changes: [change({ record_id: theirs.record_id, body, change_seq: 7 })],
      lastSeq: 7,
    });
    assert.equal(applied.saved.length, 1);
    assert.equal(s.teamCounts().backlog, 0, "a pulled record is not published back");
    assert.equal(s.teamCursor(KEY), 7);
    const [stored] = await s.getRecords([theirs.record_id]);
    assert.equal(stored.namespace, mine.namespace, "stored in this machine's namespace");
    assert.equal(s.teamProvenance([theirs.record_id]).get(theirs.record_id)?.client, "m_alice");

    // A local edit not yet published is not overwritten by an older copy.
    await s.updateRecord(theirs.record_id, { title: "edited here" });
    s.teamApply({
      projectKey: KEY,
      changes: [change({ record_id: theirs.record_id, body, change_seq: 8 })],
      lastSeq: 8,
    });
    assert.equal((await s.getRecords([theirs.record_id]))[0].title, "edited here");

    // A tombstone wins even over that pending edit, and forgotten stays forgotten.
    s.teamApply({
      projectKey: KEY,
      changes: [change({ record_id: theirs.record_id, state: "forgotten", change_seq: 9 })],
      lastSeq: 9,
    });
    assert.deepEqual(await s.getRecords([theirs.record_id]), []);
    assert.equal(s.teamCounts().backlog, 0, "the pending edit went with it");
    s.teamApply({
      projectKey: KEY,
      changes: [change({ record_id: theirs.record_id, body, change_seq: 10 })],
      lastSeq: 10,
    });
    assert.deepEqual(await s.getRecords([theirs.record_id]), [], "not brought back");
    assert.equal(s.teamCursor(KEY), 10);
  });
});

Deno.test("leaving keeps the changes of projects shared before, and only those", async () => {
  await withStorage(async (s) => {
    s.setTeamCapture(true);
    s.teamStartProject(KEY);
    s.teamAck(s.teamOutbox({ limit: 10 }).map((i) => i.seq));
    const other = "/actor/tester/project/git-" + "0".repeat(64) + "/";
    await s.putRecord(makeRecord({ namespace: other, title: "never shared" }));
    s.setTeamCapture(false); // left
    const whileLeft = makeRecord({ title: "made while left" });
    await s.putRecord(whileLeft);
    await s.putRecord(makeRecord({ namespace: other, title: "still never shared" }));
    s.setTeamCapture(false); // the collector starts again, still without a team
    assert.deepEqual(
      s.teamOutbox({ limit: 10 }).map((i) => i.record_id),
      [whileLeft.record_id],
      "the shared project's change waits for a re-join; the rest is not kept",
    );
    s.setTeamCapture(true); // joined again
    assert.equal(s.teamStartProject(KEY), false, "its records are not queued a second time");
    assert.deepEqual(s.teamOutbox({ limit: 10 }).map((i) => i.record_id), [whileLeft.record_id]);
    const [first] = s.teamOutbox({ limit: 10 });
    assert.deepEqual(s.teamOutbox({ limit: 10, afterSeq: first.seq }), [], "afterSeq passes over");
    assert.deepEqual(s.teamStartedProjects(), [KEY]);
  });
});

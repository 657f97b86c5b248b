// The local side of team memory: what the outbox captures, and how pulled changes apply.
import assert from "node:assert/strict";
import { gitRemoteProject, makeEvent, makeRecord, TEST_NAMESPACE } from "../testing/mod.ts";
import { buildNamespace } from "../project/mod.ts";
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

/** Two projects with ids from real repositories: one shared, one never granted. */
async function twoProjects(): Promise<{ shared: string; secret: string; remove(): Promise<void> }> {
  const root = await Deno.makeTempDir({ prefix: "kiro-learn-team-" });
  const shared = await gitRemoteProject(root, "pay", { remote: "git@github.com:acme/pay.git" });
  const secret = await gitRemoteProject(root, "plans", { remote: "https://github.com/acme/plans" });
  return {
    shared: shared.projectId,
    secret: secret.projectId,
    remove: () => Deno.remove(root, { recursive: true }),
  };
}

Deno.test("a pulled change naming a record of another project is refused and changes nothing", async () => {
  const projects = await twoProjects();
  try {
    await withStorage(async (s) => {
      s.setTeamCapture(true);
      const sharedNs = buildNamespace("bob", projects.shared);
      const secretNs = buildNamespace("bob", projects.secret);
      await s.putRecord(makeRecord({ namespace: sharedNs, title: "bob works here" }));
      const victims = [1, 2, 3].map((i) =>
        makeRecord({ namespace: secretNs, title: `secret ${i}` })
      );
      for (const r of victims) await s.putRecord(r);
      // A merge in the private project, whose summary's id a hostile tombstone names too.
      const survivor = makeRecord({ namespace: secretNs, title: "secret survivor" });
      await s.commitReconciliation({
        consumedSeqs: [],
        put: [{ record: survivor }],
        deleteIds: [],
        merges: [{ summary_id: survivor.record_id, replaced: [] }],
      });
      const outboxBefore = s.teamOutbox({ limit: 100 }).map((i) => i.seq);
      const before = await s.getRecords([...victims, survivor].map((r) => r.record_id));
      const { namespace: _, ...body } = { ...victims[1], title: "overwritten" };
      const ok = makeRecord({ namespace: TEST_NAMESPACE, title: "a teammate's note" });
      const { namespace: __, ...okBody } = ok;
      const applied = s.teamApply({
        projectKey: projects.shared,
        changes: [
          change({ record_id: victims[0].record_id, state: "forgotten", change_seq: 1 }),
          change({ record_id: victims[1].record_id, body, change_seq: 2 }),
          change({
            record_id: victims[2].record_id,
            state: "merged",
            superseded_by: ok.record_id,
            change_seq: 3,
          }),
          change({ record_id: survivor.record_id, state: "forgotten", change_seq: 4 }),
          change({ record_id: ok.record_id, body: okBody, change_seq: 5 }),
        ],
        lastSeq: 5,
      });
      assert.deepEqual(applied.refused, [...victims, survivor].map((r) => r.record_id));
      assert.deepEqual(applied.deleted, []);
      assert.deepEqual(applied.saved.map((r) => r.record_id), [ok.record_id]);
      assert.deepEqual(await s.getRecords([...victims, survivor].map((r) => r.record_id)), before);
      assert.equal(
        (await s.listMerges({ namespace: secretNs, limit: 10 })).length,
        1,
        "the merge history stays",
      );
      assert.deepEqual(s.teamOutbox({ limit: 100 }).map((i) => i.seq), outboxBefore);
      assert.deepEqual(s.teamProvenance(victims.map((r) => r.record_id)).size, 0);
      const tombstones = s.db.prepare("SELECT count(*) AS n FROM forgotten_records").get();
      assert.equal(tombstones?.n, 0, "no forgotten tombstone for a private record");
      const [landed] = await s.getRecords([ok.record_id]);
      assert.equal(landed.namespace, sharedNs, "the teammate's record lands in the project");
      assert.equal(s.teamCursor(projects.shared), 5);
    });
  } finally {
    await projects.remove();
  }
});

Deno.test("a project's local namespace: its newest record's, else its newest event's", async () => {
  const projects = await twoProjects();
  try {
    await withStorage(async (s) => {
      const at = (actor: string, project = projects.shared) => buildNamespace(actor, project);
      assert.equal(s.teamLocalNamespace(projects.shared), null);
      // Other projects' rows and other actors around it change nothing.
      for (const actor of ["zed", "amy", "bob-2", "bob"]) {
        await s.putRecord(makeRecord({ namespace: at(actor, projects.secret) }));
      }
      assert.equal(s.teamLocalNamespace(projects.shared), null);
      const event = (actor: string, valid_time: string) =>
        s.ingestEvent(makeEvent({ namespace: at(actor), actor_id: actor, valid_time }), {
          project_id: projects.shared,
          enqueue: false,
        });
      await event("amy", "2026-01-02T00:00:00.000Z");
      await event("bob", "2026-03-01T00:00:00.000Z");
      await event("zed", "2026-02-01T00:00:00.000Z");
      assert.equal(s.teamLocalNamespace(projects.shared), at("bob"), "the newest event's");
      await s.putRecord(makeRecord({ namespace: at("zed") }));
      await s.putRecord(makeRecord({ namespace: at("amy") }));
      assert.equal(s.teamLocalNamespace(projects.shared), at("amy"), "the newest record's");
      assert.equal(s.teamLocalNamespace(projects.secret), at("bob", projects.secret));
    });
  } finally {
    await projects.remove();
  }
});

Deno.test("a batch that gives way ends after that change, its cursor after it, the rest untouched", async () => {
  const root = await Deno.makeTempDir({ prefix: "kl_team_give_way_" });
  try {
    const { projectId } = await gitRemoteProject(root, "pay", {
      remote: "git@github.com:acme/pay.git",
    });
    await withStorage(async (s) => {
      await s.putRecord(makeRecord({ namespace: buildNamespace("bob", projectId) }));
      const changes = [1, 2, 3, 4, 5].map((seq) => {
        const { namespace: _, ...body } = makeRecord({ title: `pulled ${seq}` });
        return change({ record_id: body.record_id, body, change_seq: 10 + seq });
      });
      let asked = 0;
      // A writer of the collector announces itself while the second change is applied.
      const applied = s.teamApply({
        projectKey: projectId,
        changes,
        lastSeq: 15,
        giveWay: () => ++asked >= 2,
      });
      assert.equal(applied.done, 2);
      assert.deepEqual(applied.saved.map((r) => r.title), ["pulled 1", "pulled 2"]);
      assert.equal(s.teamCursor(projectId), 12, "the next pull starts after the second change");
      assert.equal((await s.getRecords(changes.slice(2).map((c) => c.record_id))).length, 0);
      // Nothing waiting: the rest goes through in one batch, and the last change never asks.
      const rest = s.teamApply({
        projectKey: projectId,
        changes: changes.slice(2),
        lastSeq: 15,
        giveWay: () => false,
      });
      assert.equal(rest.done, 3);
      assert.equal(s.teamCursor(projectId), 15);
      assert.equal((await s.getRecords(changes.map((c) => c.record_id))).length, 5);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

// Publishing outbox batches to a real PostgreSQL 15 (started by the test): one multi-row upsert
// per batch with the per-row rules, and rows the database refuses not holding up the others.
// The outboxes are real SQLite stores' (two machines), for projects whose ids come from real git
// repositories with remotes.
import assert from "node:assert/strict";
import { buildNamespace } from "@kiro-learn/core/project";
import { makeRecord } from "@kiro-learn/core/testing";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import {
  createTeamDatabase,
  gitProjectIds,
  startTestPostgres,
  type TestPostgres,
} from "../../tooling/testing/mod.ts";
import { connectTeam, type TeamSql } from "./mod.ts";
import { publishProject } from "./_publish.ts";

const [PROJECT, OTHER_PROJECT] = await gitProjectIds([
  "git@github.com:acme/pay.git",
  "https://github.com/acme/ledger",
]);
const MEMBERS = [
  { role: "alice", password: "alice-pw", projects: [PROJECT] },
  { role: "bob", password: "bob-pw", projects: [PROJECT, OTHER_PROJECT] },
];

/** A machine's store with sharing on and `PROJECT` started, removed on dispose. */
async function machine(): Promise<SqliteStorage & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-publish-" });
  const store = openSqliteStorage(`${dir}/kiro-learn.db`);
  store.setTeamCapture(true);
  store.teamStartProject(PROJECT);
  return Object.assign(store, {
    async [Symbol.asyncDispose]() {
      store.close();
      await Deno.remove(dir, { recursive: true });
    },
  });
}

function member(pg: TestPostgres, role: string): TeamSql & AsyncDisposable {
  const sql = connectTeam(pg.url({ user: role, password: "", db: "team" }), {
    password: `${role}-pw`,
    max: 1,
  });
  return Object.assign(sql, { [Symbol.asyncDispose]: () => sql.end() });
}

/** Publishes the store's whole outbox of `PROJECT` as the sync does, acknowledging what is done. */
async function publish(sql: TeamSql, store: SqliteStorage) {
  const items = store.teamOutbox({ limit: 500 }).filter((i) => i.kind !== "skip");
  const outcome = await publishProject(sql, items, {
    projectKey: PROJECT,
    clientId: store.teamClientId(),
  });
  store.teamAck(outcome.done);
  store.teamAck(
    store.teamOutbox({ limit: 500 }).filter((i) => i.kind === "skip").map((i) => i.seq),
  );
  return outcome;
}

interface Row {
  record_id: string;
  state: string;
  change_seq: string;
  title: string | null;
}

async function rows(pg: TestPostgres): Promise<Map<string, Row>> {
  const admin = connectTeam(pg.url({ db: "team", password: "" }), { password: pg.adminPassword });
  try {
    const all = await admin<Row[]>`
      SELECT record_id, state, change_seq::text, body->>'title' AS title FROM kl_records`;
    return new Map(all.map((r) => [r.record_id, { ...r }]));
  } finally {
    await admin.end();
  }
}

Deno.test("a batch of new, newer, unchanged, stale and forgotten rows, with refused rows among them", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, { members: MEMBERS });
  await using a = await machine();
  await using b = await machine();
  await using asAlice = member(pg, "alice");
  await using asBob = member(pg, "bob");
  const ns = (actor: string) => buildNamespace(actor, PROJECT);

  const edited = makeRecord({ namespace: ns("alice"), title: "retries on 409" });
  const same = makeRecord({ namespace: ns("alice"), title: "unchanged" });
  const stale = makeRecord({ namespace: ns("alice"), title: "forgotten by bob" });
  const forgotten = makeRecord({ namespace: ns("alice"), title: "forgotten by alice" });
  for (const r of [edited, same, stale, forgotten]) await a.putRecord(r);
  const first = await publish(asAlice, a);
  assert.deepEqual(first.refused, []);
  assert.equal(first.published, 4);
  assert.equal(a.teamCounts().backlog, 0);
  const before = await rows(pg);
  assert.equal(before.size, 4);

  // Bob forgets his copy of `stale` (a tombstone is final); Alice, offline meanwhile, edits hers.
  await b.putRecord({ ...stale, namespace: ns("bob") });
  await b.forgetRecords([stale.record_id]);
  assert.deepEqual((await publish(asBob, b)).refused, []);
  assert.equal((await rows(pg)).get(stale.record_id)?.state, "forgotten");

  // The admin limits a record's size and keeps drafts out (a policy of their own).
  await pg.psql(
    `ALTER TABLE kl_records ADD CONSTRAINT kl_body_size
       CHECK (body IS NULL OR octet_length(body::text) < 2000);
     CREATE POLICY kl_no_drafts ON kl_records AS RESTRICTIVE FOR INSERT
       WITH CHECK (coalesce(body->>'title', '') NOT LIKE 'DRAFT%');`,
    { db: "team" },
  );
  const fresh = makeRecord({ namespace: ns("alice"), title: "new" });
  const huge = makeRecord({ namespace: ns("alice"), title: "huge", summary: "x".repeat(3000) });
  const draft = makeRecord({ namespace: ns("alice"), title: "DRAFT plan" });
  const after = makeRecord({ namespace: ns("alice"), title: "after the refused ones" });
  await a.putRecord(fresh);
  await a.putRecord(huge);
  await a.putRecord(draft);
  await a.updateRecord(edited.record_id, { title: "retries on 409, not 500" });
  await a.updateRecord(edited.record_id, { title: "retries on 409, never on 500" });
  await a.updateRecord(same.record_id, { title: "unchanged" });
  await a.updateRecord(stale.record_id, { title: "edited while offline" });
  await a.forgetRecords([forgotten.record_id]);
  await a.putRecord(after);
  const seqOf = (id: string) =>
    a.teamOutbox({ limit: 500 }).filter((i) => i.record_id === id).map((i) => i.seq);
  const draftSeqs = seqOf(draft.record_id);

  const outcome = await publish(asAlice, a);
  const refused = new Map(outcome.refused.map((r) => [r.record_id, r]));
  assert.equal(refused.size, 2, JSON.stringify(outcome.refused));
  assert.equal(refused.get(huge.record_id)?.kept, false, "refused for its content: done with");
  assert.match(refused.get(huge.record_id)!.reason, /kl_body_size.*23514/);
  assert.equal(refused.get(draft.record_id)?.kept, true, "refused by a policy: kept");
  assert.match(refused.get(draft.record_id)!.reason, /row-level security.*42501/);
  assert.deepEqual(outcome.kept, draftSeqs);
  assert.deepEqual(a.teamOutbox({ limit: 500 }).map((i) => i.seq), draftSeqs);

  const now = await rows(pg);
  assert.equal(now.get(fresh.record_id)?.title, "new");
  assert.equal(now.get(after.record_id)?.title, "after the refused ones");
  assert.equal(now.get(edited.record_id)?.title, "retries on 409, never on 500");
  assert.ok(
    BigInt(now.get(edited.record_id)!.change_seq) >
      BigInt(before.get(edited.record_id)!.change_seq),
  );
  assert.deepEqual(now.get(same.record_id), before.get(same.record_id), "unchanged: not rewritten");
  assert.equal(now.get(stale.record_id)?.state, "forgotten", "a stale edit revives nothing");
  assert.equal(now.get(stale.record_id)?.title, null);
  assert.equal(now.get(forgotten.record_id)?.state, "forgotten");
  assert.equal(now.has(huge.record_id), false);
  assert.equal(now.has(draft.record_id), false);
  assert.equal((await a.getRecords([huge.record_id])).length, 1, "a refused record stays here");

  // The admin lifts the policy: the kept row goes out with the next batch.
  await pg.psql("DROP POLICY kl_no_drafts ON kl_records", { db: "team" });
  const again = await publish(asAlice, a);
  assert.deepEqual(again.refused, []);
  assert.equal(again.published, 1);
  assert.equal((await rows(pg)).get(draft.record_id)?.title, "DRAFT plan");
  assert.equal(a.teamCounts().backlog, 0);
});

Deno.test("a batch of a project whose grant went away is kept whole", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, { members: MEMBERS });
  await using a = await machine();
  await using asAlice = member(pg, "alice");
  for (let i = 0; i < 20; i++) {
    await a.putRecord(makeRecord({ namespace: buildNamespace("alice", PROJECT), title: `n${i}` }));
  }
  await pg.psql(`DELETE FROM kl_grants WHERE role = 'alice'`, { db: "team" });
  const outcome = await publish(asAlice, a);
  assert.deepEqual(outcome.done, []);
  assert.equal(outcome.kept.length, 20);
  assert.equal(outcome.published, 0);
  assert.equal(a.teamCounts().backlog, 20, "kept until it is granted again");
  assert.equal((await rows(pg)).size, 0);

  await pg.psql(`INSERT INTO kl_grants (role, project_key) VALUES ('alice', '${PROJECT}')`, {
    db: "team",
  });
  assert.equal((await publish(asAlice, a)).published, 20);
  assert.equal((await rows(pg)).size, 20);
  assert.equal(a.teamCounts().backlog, 0);
});

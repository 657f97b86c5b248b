// Team sync between real collectors (separate data dirs standing in for machines, different
// actors, the same project) through a real PostgreSQL 15 started by the test.
import assert from "node:assert/strict";
import { loadSettings } from "@kiro-learn/core/settings";
import { makeEvent, makeRecord } from "@kiro-learn/core/testing";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { silentLogger } from "../runtime/mod.ts";
import { type RunningCollector, startCollector } from "../mod.ts";
import {
  createTeamDatabase,
  freePort,
  gitProjectIds,
  processText,
  runKiroLearn,
  startTestPostgres,
  type TestPostgres,
  waitFor,
} from "../../tooling/testing/mod.ts";
import { connectTeam, type TeamSql } from "./mod.ts";

// Real project ids: checkouts of two repositories with remotes (the key `team join` prints).
const [PROJECT, OTHER_PROJECT] = await gitProjectIds([
  "git@github.com:acme/pay.git",
  "https://github.com/acme/ledger",
]);
const ns = (actor: string, project = PROJECT) => `/actor/${actor}/project/${project}/`;
const MEMBERS = [
  { role: "alice", password: "alice-pw", projects: [PROJECT, OTHER_PROJECT] },
  { role: "bob", password: "bob-pw", projects: [PROJECT] },
  { role: "carol", password: "carol-pw", projects: [PROJECT] },
];

/** A machine: a collector in this process on its own data dir, joined to the team as `role`. */
interface Machine extends RunningCollector {
  /** Its data dir. */
  dataDir: string;
  /** Stops the collector, keeping the data dir (a machine going offline). */
  stop(): Promise<void>;
  /** Stops it and removes the data dir. */
  [Symbol.asyncDispose](): Promise<void>;
}

async function machine(
  pg: TestPostgres,
  role: string,
  options: { dataDir?: string; team?: boolean } = {},
): Promise<Machine> {
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: `kiro-learn-${role}-` });
  const member = MEMBERS.find((m) => m.role === role)!;
  await Deno.writeTextFile(
    `${dataDir}/settings.json`,
    JSON.stringify({
      collector: { port: freePort() },
      embedding: { backend: "off" },
      reconciliation: { enabled: false },
      ...options.team === false
        ? {}
        : { team: { url: pg.url({ user: role, password: "", db: "team" }), pollMs: 100 } },
    }),
  );
  await Deno.writeTextFile(`${dataDir}/team-password`, member.password, { mode: 0o600 });
  const settings = loadSettings({ env: { KIRO_LEARN_HOME: dataDir } });
  const collector = await startCollector(settings, { logger: silentLogger() });
  const stop = () => collector.close();
  return Object.assign(collector, {
    dataDir,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
      if (!options.dataDir) await Deno.remove(dataDir, { recursive: true });
    },
  });
}

/** Waits for a synchronous condition (a status field) to hold. */
function until<T>(check: () => T | undefined, what: string): Promise<T> {
  return waitFor(() => Promise.resolve(check()), { what, timeoutMs: 60_000 });
}

async function api(c: RunningCollector, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${c.token}`);
  headers.set("host", new URL(c.url).host);
  if (init.body) headers.set("content-type", "application/json");
  return await c.request(`${c.url}${path}`, { ...init, headers });
}

async function save(c: RunningCollector, record: MemoryRecord): Promise<void> {
  const res = await api(c, "/v1/memories", { method: "POST", body: JSON.stringify(record) });
  assert.equal(res.status, 200, await res.text());
}

async function title(c: RunningCollector, id: string): Promise<string | null> {
  const [record] = await c.storage.getRecords([id]);
  return record?.title ?? null;
}

function arrives(c: RunningCollector, id: string, expected: string | null): Promise<true> {
  return waitFor(async () => (await title(c, id)) === expected ? true : undefined, {
    what: `${id} to read ${expected}`,
  });
}

Deno.test("save, edit, forget and merge propagate between two machines", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, { members: MEMBERS });
  await using a = await machine(pg, "alice");
  await using b = await machine(pg, "bob");
  const shared = makeRecord({ namespace: ns("alice"), title: "payments client retries on 409" });
  await save(a, shared);
  await until(() => a.team!.status().backlog === 0 || undefined, "A to publish");
  await b.team!.syncNow();
  assert.equal(await title(b, shared.record_id), null, "B has not worked on the project yet");
  // Once B works on it, teammates' records land in B's own namespace for it.
  await save(b, makeRecord({ namespace: ns("bob"), title: "bob's own note" }));
  await arrives(b, shared.record_id, "payments client retries on 409");
  const [onB] = await b.storage.getRecords([shared.record_id]);
  assert.equal(onB.namespace, ns("bob"), "retrievable in B's namespace for the project");
  const detail = await (await api(b, `/v1/memories/${shared.record_id}`)).json();
  assert.equal(detail.provenance.actor, "alice");
  assert.equal(detail.provenance.role, "alice");
  assert.equal(detail.provenance.client, a.storage.teamClientId());
  const found = await (await api(
    b,
    `/v1/memories/search?namespace=${encodeURIComponent(ns("bob"))}&query=payments+retries`,
  )).json();
  assert.ok(found.some((r: MemoryRecord) => r.record_id === shared.record_id));
  // And B's own note reached A.
  const bobs = (await b.storage.listRecords({ namespace: ns("bob"), limit: 10, offset: 0 }))
    .items.find((r) => r.title === "bob's own note")!;
  await arrives(a, bobs.record_id, "bob's own note");

  // Edit on B reaches A.
  const edit = await api(b, `/v1/memories/${shared.record_id}`, {
    method: "PATCH",
    body: JSON.stringify({ title: "payments client retries on 409, never on 500" }),
  });
  assert.equal(edit.status, 200);
  await arrives(a, shared.record_id, "payments client retries on 409, never on 500");

  // Forget on A disappears on B.
  assert.equal(
    (await api(a, `/v1/memories/${shared.record_id}`, { method: "DELETE" })).status,
    200,
  );
  await arrives(b, shared.record_id, null);

  // A merge on A (the reconciler's commit): the replaced records go, the survivor comes.
  const first = makeRecord({ namespace: ns("alice"), title: "run tests with --runInBand" });
  const second = makeRecord({ namespace: ns("alice"), title: "integration tests need runInBand" });
  await save(a, first);
  await save(a, second);
  await arrives(b, first.record_id, first.title);
  await arrives(b, second.record_id, second.title);
  const survivor = makeRecord({
    namespace: ns("alice"),
    title: "integration tests: always --runInBand",
    strategy: "llm-reconciled",
  });
  await a.storage.commitReconciliation({
    consumedSeqs: [],
    put: [{ record: survivor }],
    deleteIds: [first.record_id, second.record_id],
    merges: [{ summary_id: survivor.record_id, replaced: [first, second] }],
  });
  await arrives(b, survivor.record_id, survivor.title);
  await arrives(b, first.record_id, null);
  await arrives(b, second.record_id, null);

  // The team database holds the merge as tombstones pointing at the survivor.
  const sql = connectTeam(pg.url({ db: "team", password: "" }), { password: pg.adminPassword });
  try {
    const rows = await sql`SELECT record_id, state, superseded_by FROM kl_records
      WHERE record_id IN (${first.record_id}, ${second.record_id}, ${shared.record_id})
      ORDER BY record_id`;
    const byId = new Map(rows.map((r) => [r.record_id, r]));
    assert.equal(byId.get(first.record_id)?.state, "merged");
    assert.equal(byId.get(first.record_id)?.superseded_by, survivor.record_id);
    assert.equal(byId.get(shared.record_id)?.state, "forgotten");
  } finally {
    await sql.end();
  }
});

Deno.test("a machine offline during a forget: its stale copy never comes back", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, { members: MEMBERS });
  await using a = await machine(pg, "alice");
  await using b = await machine(pg, "bob");
  await save(b, makeRecord({ namespace: ns("bob"), title: "bob works here" }));
  const carolDir = await Deno.makeTempDir({ prefix: "kiro-learn-carol-" });
  try {
    const record = makeRecord({ namespace: ns("alice"), title: "deploy key lives in vault" });
    await save(a, record);
    {
      await using carol = await machine(pg, "carol", { dataDir: carolDir });
      // Pulling starts once a machine has worked on the project.
      await save(carol, makeRecord({ namespace: ns("carol"), title: "carol's own note" }));
      await arrives(carol, record.record_id, record.title);
      await arrives(b, record.record_id, record.title);
    }
    // Carol is offline: her collector is down, and she edits her copy meanwhile (the edit
    // waits in her outbox).
    const offline = openSqliteStorage(`${carolDir}/kiro-learn.db`);
    await offline.updateRecord(record.record_id, { title: "deploy key lives in vault (edited)" });
    assert.equal(offline.teamCounts().backlog, 1);
    offline.close();

    assert.equal(
      (await api(a, `/v1/memories/${record.record_id}`, { method: "DELETE" })).status,
      200,
    );
    await arrives(b, record.record_id, null);

    // Carol reconnects: her stale edit is published and refused by the tombstone, and the
    // forget reaches her.
    await using carol = await machine(pg, "carol", { dataDir: carolDir });
    await arrives(carol, record.record_id, null);
    await until(() => carol.team!.status().backlog === 0 || undefined, "carol's backlog to go");
    await b.team!.syncNow();
    await a.team!.syncNow();
    assert.equal(await title(a, record.record_id), null);
    assert.equal(await title(b, record.record_id), null);
    await assert.rejects(a.storage.putRecord(record), /forgotten/);
    await assert.rejects(carol.storage.putRecord(record), /forgotten/);
  } finally {
    await Deno.remove(carolDir, { recursive: true });
  }
});

Deno.test("PostgreSQL killed mid-sync and restarted: nothing lost, nothing twice", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, { members: MEMBERS });
  await using a = await machine(pg, "alice");
  await using b = await machine(pg, "bob");
  await save(b, makeRecord({ namespace: ns("bob"), title: "bob was here first" }));
  const records = Array.from(
    { length: 1300 },
    (_, i) => makeRecord({ namespace: ns("alice"), title: `note ${i}` }),
  );
  for (const r of records.slice(0, 1200)) await a.storage.putRecord(r);
  // Kill it once A has published a first batch (of several), while it publishes the next.
  while (a.team!.status().published === 0 && a.team!.status().backlog > 0) {
    await new Promise((r) => setTimeout(r, 1));
  }
  await pg.kill();
  for (const r of records.slice(1200)) await save(a, r); // saving locally keeps working
  // The client may throw outside any caller as the server goes, ending the sync's Worker: then
  // the Worker's death is the last error until the restarted Worker meets the server down.
  const down = await until(() => {
    const s = a.team!.status();
    return s.last_error?.includes("cannot reach the team database") ? s : undefined;
  }, "the sync to notice");
  assert.ok(down.backlog > 0, "the backlog is visible");
  const stats = await (await api(a, "/v1/stats")).json();
  assert.equal(stats.team.backlog > 0, true, "and in the status API");
  assert.equal(stats.team.connected, false);
  const status = processText(
    await runKiroLearn(["status"], { env: { KIRO_LEARN_HOME: a.dataDir, HOME: a.dataDir } }),
  );
  assert.match(status, /team: postgres:\/\/alice@.*NOT CONNECTED, backlog \d+ change\(s\)/);
  assert.match(status, /last error: cannot reach the team database/);

  await pg.restart();
  await waitFor(async () => {
    const n = (await b.storage.listRecords({ namespace: ns("bob"), limit: 1, offset: 0 }))
      .total;
    return n === records.length + 1 ? true : undefined;
  }, { what: "every record on B", timeoutMs: 60_000 });
  // A's next whole cycle succeeds and its backlog is gone.
  await until(() => {
    const s = a.team!.status();
    return s.backlog === 0 && s.last_error === null ? true : undefined;
  }, "A to catch up");
  const sql = connectTeam(pg.url({ db: "team", password: "" }), { password: pg.adminPassword });
  try {
    const [{ n, distinct }] = await sql`SELECT count(*)::int AS n,
      count(DISTINCT record_id)::int AS distinct FROM kl_records WHERE project_key = ${PROJECT}`;
    const expected = records.length + 1; // and bob's note
    assert.deepEqual({ n, distinct }, { n: expected, distinct: expected });
  } finally {
    await sql.end();
  }
  const onB = await b.storage.listRecords({ namespace: ns("bob"), limit: 2000, offset: 0 });
  assert.deepEqual(
    onB.items.map((r) => r.title).filter((t) => t.startsWith("note ")).sort(),
    records.map((r) => r.title).sort(),
    "each record exactly once",
  );
});

Deno.test("a role without a grant gets nothing and shares nothing; a wrong password is shown", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, {
    members: [...MEMBERS, { role: "dave", password: "dave-pw", projects: [] }],
  });
  MEMBERS.push({ role: "dave", password: "dave-pw", projects: [] });
  MEMBERS.push({ role: "eve", password: "not-eves-password", projects: [] });
  try {
    await using a = await machine(pg, "alice");
    await using b = await machine(pg, "bob");
    await using dave = await machine(pg, "dave");
    await save(b, makeRecord({ namespace: ns("bob"), title: "bob works here" }));
    const record = makeRecord({ namespace: ns("alice"), title: "granted projects only" });
    await save(a, record);
    const daves = makeRecord({ namespace: ns("dave"), title: "dave's note stays home" });
    await save(dave, daves);
    await arrives(b, record.record_id, record.title);
    await dave.team!.syncNow();
    await a.team!.syncNow();
    assert.equal(await title(dave, record.record_id), null);
    assert.equal(await title(a, daves.record_id), null);
    const status = dave.team!.status();
    assert.equal(status.last_error, null);
    assert.equal(status.projects, 0);
    assert.equal(await title(dave, daves.record_id), "dave's note stays home");

    await using eve = await machine(pg, "eve"); // no such role's password: refused
    const refused = await until(() => eve.team!.status().last_error ?? undefined, "eve's error");
    assert.match(refused, /refused the password for role "eve"/);
    const local = makeRecord({ namespace: ns("eve"), title: "still saved locally" });
    await save(eve, local);
    assert.equal(await title(eve, local.record_id), "still saved locally");
  } finally {
    MEMBERS.splice(3);
  }
});

async function keysIn(sql: TeamSql, project: string): Promise<string[]> {
  return (await sql`SELECT record_id FROM kl_records WHERE project_key = ${project}
    ORDER BY record_id`).map((r) => r.record_id);
}

Deno.test("sharing follows the grants: not granted stays local (and says so), re-granted and re-joined publish what was made meanwhile", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, {
    members: [{ role: "alice", password: "alice-pw", projects: [PROJECT] }],
  });
  const admin = connectTeam(pg.url({ db: "team", password: "" }), { password: pg.adminPassword });
  const dataDir = await Deno.makeTempDir({ prefix: "kiro-learn-alice-" });
  try {
    const published = (c: RunningCollector, n: number) =>
      until(() => {
        const s = c.team!.status();
        return s.published >= n && s.backlog === 0 ? s : undefined;
      }, `${n} published and no backlog`);
    {
      await using a = await machine(pg, "alice", { dataDir });
      const shared = makeRecord({ namespace: ns("alice"), title: "shared from the start" });
      const local = makeRecord({ namespace: ns("alice", OTHER_PROJECT), title: "not granted" });
      await save(a, shared);
      await save(a, local);
      const status = await published(a, 1);
      assert.deepEqual(status.granted, [PROJECT], "status names what is granted");
      assert.deepEqual(await keysIn(admin, PROJECT), [shared.record_id]);
      assert.deepEqual(await keysIn(admin, OTHER_PROJECT), [], "its records stay local");
      assert.equal(await title(a, local.record_id), "not granted");

      // Granted: every record made before is published, once.
      await admin`INSERT INTO kl_grants (role, project_key) VALUES ('alice', ${OTHER_PROJECT})`;
      await a.team!.syncNow();
      await published(a, 2);
      assert.deepEqual(await keysIn(admin, OTHER_PROJECT), [local.record_id]);

      // Revoked: what is made meanwhile waits (the backlog says so), and goes when granted again.
      await admin`DELETE FROM kl_grants WHERE project_key = ${OTHER_PROJECT}`;
      await a.team!.syncNow();
      const meanwhile = makeRecord({ namespace: ns("alice", OTHER_PROJECT), title: "meanwhile" });
      await save(a, meanwhile);
      await a.team!.syncNow();
      await a.team!.syncNow();
      assert.equal(a.team!.status().backlog, 1, "kept, not dropped");
      assert.deepEqual(a.team!.status().granted, [PROJECT]);
      assert.deepEqual(await keysIn(admin, OTHER_PROJECT), [local.record_id]);
      await admin`INSERT INTO kl_grants (role, project_key) VALUES ('alice', ${OTHER_PROJECT})`;
      await a.team!.syncNow();
      await published(a, 3);
      assert.deepEqual(
        await keysIn(admin, OTHER_PROJECT),
        [local.record_id, meanwhile.record_id].sort(),
      );
    }
    // Left (the collector runs without a team): a save and a forget in a shared project ...
    const whileLeft = makeRecord({ namespace: ns("alice"), title: "made while left" });
    const forgottenWhileLeft = makeRecord({
      namespace: ns("alice"),
      title: "forgotten while left",
    });
    {
      await using left = await machine(pg, "alice", { dataDir, team: false });
      const [before] = await keysIn(admin, PROJECT);
      assert.equal(
        (await api(left, `/v1/memories/${before}`, { method: "DELETE" })).status,
        200,
      );
      await save(left, whileLeft);
      await save(left, forgottenWhileLeft);
      await api(left, `/v1/memories/${forgottenWhileLeft.record_id}`, { method: "DELETE" });
    }
    // ... are published after a re-join.
    await using back = await machine(pg, "alice", { dataDir });
    await until(() => back.team!.status().backlog === 0 || undefined, "the re-join to publish");
    const rows =
      await admin`SELECT record_id, state FROM kl_records WHERE project_key = ${PROJECT}`;
    const state = new Map(rows.map((r) => [r.record_id, r.state]));
    assert.equal(state.get(whileLeft.record_id), "live");
    assert.equal(state.get(forgottenWhileLeft.record_id), "forgotten");
    assert.equal(
      rows.filter((r) => r.state === "forgotten").length,
      2,
      "the forget of the first too",
    );
  } finally {
    await admin.end();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("the first event of a shared project pulls at once, not on the 30 s timer", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, { members: MEMBERS });
  await using a = await machine(pg, "alice");
  await using b = await machine(pg, "bob");
  const record = makeRecord({ namespace: ns("alice"), title: "ledger rounds half to even" });
  await save(a, record);
  await until(() => a.team!.status().backlog === 0 || undefined, "A to publish");
  // Two of B's cycles end after A's publish: its notification is used up, nothing is due.
  for (let i = 0; i < 2; i++) {
    const after = new Date().toISOString();
    await until(() => (b.team!.status().last_sync_at ?? "") > after || undefined, "B's cycle");
  }
  // B's first cycle pulled (no notification is due any more); B now works on the project: one
  // prompt, no record of its own (which would publish, and notify).
  const event = makeEvent({ namespace: ns("bob"), actor_id: "bob" });
  assert.equal(
    (await api(b, "/v1/events", { method: "POST", body: JSON.stringify(event) })).status,
    200,
  );
  // Well inside the timer's 30 s (B polls every 100 ms): generous for a loaded machine, and
  // short enough that only the pull the event starts can meet it.
  await waitFor(
    async () => (await title(b, record.record_id)) === record.title ? true : undefined,
    { what: "B to pull once it works on the project", timeoutMs: 20_000 },
  );
});

Deno.test("a record the team database refuses does not hold up the rest of the outbox", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, { members: MEMBERS });
  // The admin caps a record's size: one of Alice's records is over it.
  await pg.psql(
    `ALTER TABLE kl_records ADD CONSTRAINT kl_body_size
       CHECK (body IS NULL OR octet_length(body::text) < 2000)`,
    { db: "team" },
  );
  await using a = await machine(pg, "alice");
  await a.team!.syncNow();
  const records = [
    makeRecord({ namespace: ns("alice"), title: "before the big one" }),
    makeRecord({ namespace: ns("alice"), title: "too big", summary: "x".repeat(3000) }),
    makeRecord({ namespace: ns("alice"), title: "after the big one" }),
  ];
  for (const r of records) await save(a, r);
  await until(() => a.team!.status().backlog === 0 || undefined, "A's outbox to empty");
  const admin = connectTeam(pg.url({ db: "team", password: "" }), { password: pg.adminPassword });
  try {
    assert.deepEqual(
      await keysIn(admin, PROJECT),
      [records[0].record_id, records[2].record_id].sort(),
    );
  } finally {
    await admin.end();
  }
  assert.equal(a.team!.status().last_error, null);
  assert.equal(await title(a, records[1].record_id), "too big", "it stays on this machine");
});

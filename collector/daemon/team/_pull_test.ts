// Pulling teammates' changes into a real collector (a child process, as `serve` runs it) from a
// real PostgreSQL 15, for projects whose ids come from real git repositories with remotes.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { buildNamespace } from "@kiro-learn/core/project";
import { gitRemoteProject, makeRecord } from "@kiro-learn/core/testing";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import {
  createTeamDatabase,
  grantTeamProject,
  postJson,
  startTeamDaemon,
  startTestPostgres,
  type TestDaemon,
  waitFor,
} from "../../tooling/testing/mod.ts";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { connectTeam } from "./mod.ts";
import { pullProject } from "./_pull.ts";

const ALICE = { role: "alice", password: "alice-pw" };
const BOB = { role: "bob", password: "bob-pw" };

async function save(daemon: TestDaemon, record: MemoryRecord): Promise<void> {
  const res = await postJson(daemon, "/v1/memories", record);
  assert.equal(res.status, 200, await res.text());
}

/** A record as the daemon's SQLite file holds it now (read beside the running daemon). */
function stored(daemon: TestDaemon, id: string): Record<string, unknown> | null {
  const db = new DatabaseSync(`${daemon.dataDir}/kiro-learn.db`, { readOnly: true });
  try {
    const row = db.prepare(
      `SELECT record_id, namespace, title, summary, facts_json, updated_at,
        (SELECT count(*) FROM forgotten_records f WHERE f.record_id = m.record_id) AS forgotten,
        (SELECT count(*) FROM team_provenance p WHERE p.record_id = m.record_id) AS pulled
      FROM memory_records m WHERE record_id = ?`,
    ).get(id);
    return row ? { ...row } : null;
  } finally {
    db.close();
  }
}

Deno.test("a pulled row naming a record of a never-shared project changes nothing of it", async () => {
  const root = await Deno.makeTempDir({ prefix: "kiro-learn-pull-" });
  try {
    const shared = await gitRemoteProject(root, "pay", { remote: "git@github.com:acme/pay.git" });
    const secret = await gitRemoteProject(root, "plans", {
      remote: "https://github.com/acme/plans",
    });
    await using pg = await startTestPostgres();
    await createTeamDatabase(pg, {
      members: [{ ...ALICE, projects: [] }, { ...BOB, projects: [] }],
    });
    // The shared project is granted to both; the private one to nobody.
    await grantTeamProject(pg, { role: ALICE.role, key: shared.projectId });
    await grantTeamProject(pg, { role: BOB.role, key: shared.projectId });

    await using b = await startTeamDaemon(pg, BOB);
    await save(b, makeRecord({ namespace: buildNamespace("bob", shared.projectId), title: "hi" }));
    const mine = buildNamespace("bob", secret.projectId);
    const victims = {
      forgotten: makeRecord({ namespace: mine, title: "plans: the acquisition target" }),
      overwritten: makeRecord({ namespace: mine, title: "plans: salary bands" }),
      merged: makeRecord({ namespace: mine, title: "plans: the layoff list" }),
    };
    for (const record of Object.values(victims)) await save(b, record);
    const before = Object.fromEntries(
      Object.values(victims).map((r) => [r.record_id, stored(b, r.record_id)]),
    );

    // Alice, a member granted only the shared project, writes rows into it that carry the ids
    // of B's private records, then an ordinary record B will pull after them.
    const marker = makeRecord({ title: "after the hostile rows" });
    const alice = connectTeam(pg.url({ user: ALICE.role, password: "", db: "team" }), {
      password: ALICE.password,
    });
    try {
      const row = (id: string, state: string, body: unknown, superseded: string | null) =>
        alice`INSERT INTO kl_records (project_key, record_id, change_seq, state, body,
          superseded_by, origin_actor, origin_role, origin_client, changed_by_role,
          changed_by_client, changed_at)
        VALUES (${shared.projectId}, ${id}, 0, ${state},
          ${body === null ? null : alice.json(body as never)}, ${superseded}, 'alice',
          current_user, 'm_alice', current_user, 'm_alice', now())`;
      const { namespace: _, ...hostile } = {
        ...victims.overwritten,
        title: "plans: salary bands (everyone gets a raise)",
      };
      await row(victims.forgotten.record_id, "forgotten", null, null);
      await row(victims.overwritten.record_id, "live", hostile, null);
      await row(victims.merged.record_id, "merged", null, marker.record_id);
      const { namespace: __, ...markerBody } = marker;
      await row(marker.record_id, "live", markerBody, null);
    } finally {
      await alice.end();
    }

    await waitFor(() => Promise.resolve(stored(b, marker.record_id) ?? undefined), {
      what: "B to pull the rows",
      timeoutMs: 60_000,
    });
    for (const record of Object.values(victims)) {
      assert.deepEqual(
        stored(b, record.record_id),
        before[record.record_id],
        `${record.title} is untouched`,
      );
    }
    const stats = await (await b.fetch("/v1/stats")).json();
    assert.equal(stats.team.last_error, null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a pull that finds the write lock held past the busy timeout waits and goes on", async () => {
  const root = await Deno.makeTempDir({ prefix: "kiro-learn-pull-busy-" });
  try {
    const shared = await gitRemoteProject(root, "pay", { remote: "https://github.com/acme/pay" });
    await using pg = await startTestPostgres();
    await createTeamDatabase(pg, { members: [{ ...ALICE, projects: [shared.projectId] }] });
    const alice = connectTeam(pg.url({ user: ALICE.role, password: "", db: "team" }), {
      password: ALICE.password,
      max: 1,
    });
    const path = `${root}/kiro-learn.db`;
    // A short busy timeout: another connection's write outlasts it many times over.
    const store = openSqliteStorage(path, { busyTimeoutMs: 20 });
    const holder = new DatabaseSync(path);
    try {
      const records = Array.from({ length: 20 }, (_, i) => makeRecord({ title: `pulled ${i}` }));
      for (const { namespace: _, ...body } of records) {
        await alice`INSERT INTO kl_records (project_key, record_id, change_seq, state, body,
          origin_actor, origin_role, origin_client, changed_by_role, changed_by_client,
          changed_at)
        VALUES (${shared.projectId}, ${body.record_id}, 0, 'live', ${alice.json(body as never)},
          'alice', current_user, 'm_alice', current_user, 'm_alice', now())`;
      }
      await store.putRecord(makeRecord({ namespace: buildNamespace("bob", shared.projectId) }));
      // Another process (a CLI import, say) holds the write lock for a while.
      holder.exec("BEGIN IMMEDIATE");
      const release = setTimeout(() => holder.exec("COMMIT"), 300);
      try {
        const result = await pullProject(alice, store, {
          projectKey: shared.projectId,
          clientId: "m_bob",
        });
        assert.equal(result.pulled, 20);
      } finally {
        clearTimeout(release);
        if (holder.isTransaction) holder.exec("COMMIT");
      }
      assert.equal((await store.getRecords(records.map((r) => r.record_id))).length, 20);
    } finally {
      holder.close();
      store.close();
      await alice.end();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

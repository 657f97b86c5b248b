// The team schema on a real PostgreSQL: migrations with drift detection, and what the database
// itself enforces (row-level security per granted project, final tombstones, provenance by role).
import assert from "node:assert/strict";
import { PROJECT_ID_GRAMMAR } from "@kiro-learn/core/project";
import { type Migration, MigrationDriftError } from "@kiro-learn/core/storage";
import { createTeamDatabase, gitProjectIds, startTestPostgres } from "../../tooling/testing/mod.ts";
import { connectTeam, migrateTeam, TEAM_MIGRATIONS, teamSchemaState } from "./mod.ts";

// Real project ids: one from a remote (`git-…`), one path-derived (a repository without one is
// keyed by its path; `git init` alone makes that).
const [GRANTED, NOT_GRANTED] = await gitProjectIds(["git@github.com:acme/pay.git", null]);
const MEMBERS = [
  { role: "alice", password: "alice-pw", projects: [GRANTED, NOT_GRANTED] },
  { role: "bob", password: "bob-pw", projects: [GRANTED] },
  { role: "mallory", password: "mallory-pw", projects: [] },
];

function insertAs(sql: ReturnType<typeof connectTeam>, project: string, id: string) {
  return sql`INSERT INTO kl_records (project_key, record_id, change_seq, state, body,
      origin_actor, origin_role, origin_client, changed_by_role, changed_by_client, changed_at)
    VALUES (${project}, ${id}, 0, 'live', ${sql.json({ title: id })}, 'someone', 'forged',
      'm_x', 'forged', 'm_x', now())`;
}

Deno.test("row-level security: a role reads and writes only the projects granted to it", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, { members: MEMBERS });
  const as = (role: string) =>
    connectTeam(pg.url({ user: role, password: "", db: "team" }), {
      password: MEMBERS.find((m) => m.role === role)!.password,
    });
  const alice = as("alice");
  const bob = as("bob");
  const mallory = as("mallory");
  try {
    await insertAs(alice, GRANTED, "mr_shared");
    await insertAs(alice, NOT_GRANTED, "mr_alice_only");
    // Provenance is the connected role, whatever the client claims.
    const [row] = await alice`SELECT origin_role, changed_by_role FROM kl_records
      WHERE record_id = 'mr_shared'`;
    assert.deepEqual({ ...row }, { origin_role: "alice", changed_by_role: "alice" });

    const ids = async (sql: typeof alice) =>
      (await sql`SELECT record_id FROM kl_records ORDER BY record_id`).map((r) => r.record_id);
    assert.deepEqual(await ids(alice), ["mr_alice_only", "mr_shared"]);
    assert.deepEqual(await ids(bob), ["mr_shared"], "bob sees only his granted project");
    assert.deepEqual(await ids(mallory), [], "a role without a grant gets nothing");
    assert.deepEqual(
      (await mallory`SELECT project_key FROM kl_grants`).length,
      0,
      "nor sees anyone's grants",
    );
    await assert.rejects(insertAs(mallory, GRANTED, "mr_intruder"), /row-level security/);
    await assert.rejects(insertAs(bob, NOT_GRANTED, "mr_intruder"), /row-level security/);
    const updated = await mallory`UPDATE kl_records SET body = '{"title":"defaced"}'`;
    assert.equal(updated.count, 0, "an update reaches no row it may not read");
    await assert.rejects(mallory`DELETE FROM kl_records`, /permission denied/);
    await assert.rejects(bob`DELETE FROM kl_records`, /permission denied/, "members never delete");
    await assert.rejects(
      bob`INSERT INTO kl_grants (role, project_key) VALUES ('bob', ${NOT_GRANTED})`,
      /permission denied/,
      "members cannot grant themselves a project",
    );
  } finally {
    await Promise.all([alice.end(), bob.end(), mallory.end()]);
  }
});

Deno.test("a tombstone is final, and change_seq grows with every change", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, { members: MEMBERS });
  const bob = connectTeam(pg.url({ user: "bob", password: "", db: "team" }), {
    password: "bob-pw",
  });
  try {
    await insertAs(bob, GRANTED, "mr_a");
    const seq = async () =>
      Number((await bob`SELECT change_seq FROM kl_records WHERE record_id = 'mr_a'`)[0].change_seq);
    const first = await seq();
    await bob`UPDATE kl_records SET body = '{"title":"edited"}' WHERE record_id = 'mr_a'`;
    const second = await seq();
    assert.ok(second > first);
    await bob`UPDATE kl_records SET state = 'forgotten', body = NULL WHERE record_id = 'mr_a'`;
    // A machine that was offline writes its stale copy back: nothing changes.
    await bob`UPDATE kl_records SET state = 'live', body = '{"title":"stale"}'
      WHERE record_id = 'mr_a'`;
    const [row] = await bob`SELECT state, body FROM kl_records WHERE record_id = 'mr_a'`;
    assert.deepEqual({ ...row }, { state: "forgotten", body: null });
  } finally {
    await bob.end();
  }
});

Deno.test("team migrations: applied once, members can read the version, drift is refused", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, { members: MEMBERS });
  const admin = connectTeam(pg.url({ db: "team", password: "" }), { password: pg.adminPassword });
  const bob = connectTeam(pg.url({ user: "bob", password: "", db: "team" }), {
    password: "bob-pw",
  });
  try {
    assert.deepEqual(await migrateTeam(admin), [], "a second run applies nothing");
    assert.deepEqual(await teamSchemaState(bob), {
      applied: TEAM_MIGRATIONS.map((m) => m.version),
      pending: [],
    });
    const version = TEAM_MIGRATIONS.length + 1;
    const next: Migration = { version, name: "next", sql: "CREATE TABLE kl_next (x int)" };
    assert.deepEqual((await teamSchemaState(bob, [...TEAM_MIGRATIONS, next])).pending, [version]);
    const edited = TEAM_MIGRATIONS.map((m) => ({ ...m, sql: m.sql + "\n-- edited" }));
    await assert.rejects(teamSchemaState(bob, edited), MigrationDriftError);
    await assert.rejects(migrateTeam(admin, edited), /drifted/);
    await migrateTeam(admin, [...TEAM_MIGRATIONS, next]);
    await assert.rejects(teamSchemaState(bob), /newer kiro-learn/);
  } finally {
    await Promise.all([admin.end(), bob.end()]);
  }
});

Deno.test("a grant takes every real project id, and only those (team migration 2)", async () => {
  await using pg = await startTestPostgres();
  await pg.psql("CREATE DATABASE team");
  const admin = connectTeam(pg.url({ db: "team", password: "" }), { password: pg.adminPassword });
  try {
    // A team database migrated by an older kiro-learn (version 1 only), with a grant in it.
    assert.deepEqual(await migrateTeam(admin, TEAM_MIGRATIONS.slice(0, 1)), [1]);
    await admin`CREATE ROLE alice LOGIN IN ROLE kiro_learn_member`;
    await admin`INSERT INTO kl_grants (role, project_key) VALUES ('alice', ${NOT_GRANTED})`;
    await assert.rejects(
      admin`INSERT INTO kl_grants (role, project_key) VALUES ('alice', ${GRANTED})`,
      /kl_grants_project_key_check/,
      "version 1 refused a project with a remote: the bug",
    );
    assert.deepEqual(await migrateTeam(admin), [2]);
    await admin`INSERT INTO kl_grants (role, project_key) VALUES ('alice', ${GRANTED})`;
    const keys = (await admin`SELECT project_key FROM kl_grants ORDER BY project_key`)
      .map((r) => r.project_key);
    assert.deepEqual(keys, [NOT_GRANTED, GRANTED].sort());
    for (const bad of ["git-", `GIT-${GRANTED.slice(4)}`, `${NOT_GRANTED}0`, "pay", ""]) {
      await assert.rejects(
        admin`INSERT INTO kl_grants (role, project_key) VALUES ('alice', ${bad})`,
        /kl_grants_project_key_check/,
        bad,
      );
    }
    // The database's check is the grammar the ids are made by, not a copy of it.
    const [{ check }] = await admin`SELECT pg_get_constraintdef(oid) AS check
      FROM pg_constraint WHERE conname = 'kl_grants_project_key_check'`;
    assert.ok(check.includes(PROJECT_ID_GRAMMAR), check);
  } finally {
    await admin.end();
  }
});

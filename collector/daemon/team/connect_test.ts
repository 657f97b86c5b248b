// Connecting to the team database: clear errors that never carry the password.
import assert from "node:assert/strict";
import { createTeamDatabase, freePort, startTestPostgres } from "../../tooling/testing/mod.ts";
import {
  connectTeam,
  describeTeamError,
  readTeamPassword,
  redactTeamUrl,
  teamUser,
} from "./mod.ts";

async function failure(url: string, password: string): Promise<string> {
  const sql = connectTeam(url, { password, connectTimeoutS: 5 });
  try {
    await sql`SELECT 1`;
    return "connected";
  } catch (error) {
    return describeTeamError(error, url);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

Deno.test("wrong password, unknown database, nothing listening: each says what to do", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, {
    members: [{ role: "alice", password: "right-pw", projects: [] }],
  });
  const url = pg.url({ user: "alice", password: "", db: "team" });
  assert.equal(await failure(url, "right-pw"), "connected");
  const wrong = await failure(url, "wrong-secret-pw");
  assert.match(wrong, /refused the password for role "alice"/);
  assert.ok(!wrong.includes("wrong-secret-pw"), "the password is never in a message");
  assert.match(
    await failure(pg.url({ user: "alice", password: "", db: "nope" }), "right-pw"),
    /does not exist/,
  );
  const closed = `postgres://alice@127.0.0.1:${freePort()}/team`;
  assert.match(await failure(closed, "right-pw"), /cannot reach the team database/);
});

Deno.test("URLs are shown without their password; the password file is read as written", async () => {
  assert.equal(
    redactTeamUrl("postgres://alice:s3cret@db.example:5432/team"),
    "postgres://alice@db.example:5432/team",
  );
  assert.equal(teamUser("postgres://al%40ice@db/team"), "al@ice");
  const dir = await Deno.makeTempDir();
  try {
    assert.equal(readTeamPassword(`${dir}/absent`), "");
    await Deno.writeTextFile(`${dir}/pw`, "p@ss word\n");
    assert.equal(readTeamPassword(`${dir}/pw`), "p@ss word");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

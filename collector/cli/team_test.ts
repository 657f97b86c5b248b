// `kiro-learn team …` as a user runs it (the real CLI process, its own permissions) against a
// real PostgreSQL: clear errors that change nothing, migrate, join, status, leave.
import assert from "node:assert/strict";
import { CLI_ENTRY, CLI_RUN_FLAGS } from "@kiro-learn/core/launch";
import {
  createTeamDatabase,
  freePort,
  gitCheckout,
  gitProjectIds,
  startTestPostgres,
  TEST_PG_ADMIN,
} from "../tooling/testing/mod.ts";
import { sharingLines } from "./team.ts";

// A real project id: a checkout with a remote, as `team join` prints it.
const [GRANTED] = await gitProjectIds(["git@github.com:acme/pay.git"]);

async function kiroLearn(
  args: string[],
  options: { home: string; stdin?: string; cwd?: string },
): Promise<{ code: number; out: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_RUN_FLAGS, CLI_ENTRY, ...args],
    cwd: options.cwd ?? options.home,
    env: { KIRO_LEARN_HOME: `${options.home}/.kiro-learn`, HOME: options.home, NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  if (options.stdin !== undefined) await writer.write(new TextEncoder().encode(options.stdin));
  await writer.close();
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    out: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

function listing(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
  } catch {
    return [];
  }
}

Deno.test("team join checks everything first; wrong URL or password changes nothing", async () => {
  await using pg = await startTestPostgres();
  await pg.psql("CREATE DATABASE fresh");
  await createTeamDatabase(pg, {
    members: [{ role: "alice", password: "alice-pw", projects: [GRANTED] }],
  });
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-team-cli-" });
  const dataDir = `${home}/.kiro-learn`;
  try {
    await Deno.mkdir(dataDir, { mode: 0o700 });
    const settingsBefore = JSON.stringify({ collector: { port: freePort() } });
    await Deno.writeTextFile(`${dataDir}/settings.json`, settingsBefore);
    // 127.0.0.2: beyond the CLI's own --allow-net, so join runs itself again with it added.
    const url = pg.url({ user: "alice", password: "", db: "team", host: "127.0.0.2" });
    const unchanged = async () => {
      assert.equal(await Deno.readTextFile(`${dataDir}/settings.json`), settingsBefore);
      assert.deepEqual(listing(dataDir), ["settings.json"]);
    };

    const wrong = await kiroLearn(["team", "join", url, "--password-stdin"], {
      home,
      stdin: "not-the-password",
    });
    assert.equal(wrong.code, 1, wrong.out);
    assert.match(wrong.out, /refused the password for role "alice"/);
    assert.ok(!wrong.out.includes("not-the-password"));
    await unchanged();

    const nowhere = await kiroLearn(
      ["team", "join", `postgres://alice@127.0.0.1:${freePort()}/team`, "--password-stdin"],
      { home, stdin: "alice-pw" },
    );
    assert.equal(nowhere.code, 1);
    assert.match(nowhere.out, /cannot reach the team database/);
    await unchanged();

    const notUrl = await kiroLearn(["team", "join", "mysql://alice@db/team"], { home });
    assert.equal(notUrl.code, 1);
    assert.match(notUrl.out, /not a postgres:\/\/ URL/);

    const unmigrated = await kiroLearn(
      [
        "team",
        "join",
        pg.url({ user: TEST_PG_ADMIN, password: "", db: "fresh" }),
        "--password-stdin",
      ],
      { home, stdin: pg.adminPassword },
    );
    assert.equal(unmigrated.code, 1);
    assert.match(unmigrated.out, /no kiro-learn tables yet.*team migrate/);
    await unchanged();

    // The admin migrates the fresh database; a second run has nothing to do.
    const adminUrl = pg.url({ user: TEST_PG_ADMIN, password: "", db: "fresh" });
    const migrated = await kiroLearn(["team", "migrate", adminUrl, "--password-stdin"], {
      home,
      stdin: pg.adminPassword,
    });
    assert.equal(migrated.code, 0, migrated.out);
    assert.match(migrated.out, /applied team migration\(s\) 1, 2/);
    const again = await kiroLearn(["team", "migrate", adminUrl, "--password-stdin"], {
      home,
      stdin: pg.adminPassword,
    });
    assert.match(again.out, /schema up to date/);
    await unchanged();

    // The right password: joined, the password in its own 0600 file, never in settings.json.
    const joined = await kiroLearn(["team", "join", url, "--password-stdin"], {
      home,
      stdin: "alice-pw\n",
    });
    assert.equal(joined.code, 0, joined.out);
    assert.match(joined.out, /joined .* as role "alice"/);
    assert.match(joined.out, /this project .* is not: ask your admin[^]*INSERT INTO kl_grants/);
    const settings = JSON.parse(await Deno.readTextFile(`${dataDir}/settings.json`));
    assert.equal(settings.team.url, url);
    assert.equal(JSON.parse(settingsBefore).collector.port, settings.collector.port);
    assert.equal(await Deno.readTextFile(`${dataDir}/team-password`), "alice-pw\n");
    assert.equal((await Deno.stat(`${dataDir}/team-password`)).mode! & 0o777, 0o600);
    assert.ok(!(await Deno.readTextFile(`${dataDir}/settings.json`)).includes("alice-pw"));

    const status = await kiroLearn(["team", "status"], { home });
    assert.match(status.out, /team: postgres:\/\/alice@/);
    assert.match(status.out, /collector: stopped/);

    const left = await kiroLearn(["team", "leave"], { home });
    assert.equal(left.code, 0);
    assert.match(left.out, /every memory here stays/);
    // Leaving is local: what the admin must run to take the role's access away.
    assert.match(left.out, /REVOKE kiro_learn_member FROM alice;/);
    assert.match(left.out, /DELETE FROM kl_grants WHERE role = 'alice';/);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(`${dataDir}/settings.json`)), {
      collector: JSON.parse(settingsBefore).collector,
    });
    assert.deepEqual(listing(dataDir), ["settings.json"]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("team join on a machine with no data dir yet, in a checkout with a remote; migrate by a role that may not create", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, {
    members: [{ role: "alice", password: "alice-pw", projects: [] }],
  });
  await pg.psql("CREATE DATABASE other; CREATE ROLE ops LOGIN PASSWORD 'ops-pw'");
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-team-cli-" });
  try {
    const checkout = await gitCheckout(home, "src/pay", "https://github.com/acme/pay");
    assert.equal(checkout.projectId, GRANTED, "SSH and HTTPS checkouts share the key");
    const url = pg.url({ user: "alice", password: "", db: "team" });
    const joined = await kiroLearn(["team", "join", url, "--password-stdin"], {
      home,
      cwd: checkout.dir,
      stdin: "alice-pw",
    });
    assert.equal(joined.code, 0, joined.out);
    assert.equal((await Deno.stat(`${home}/.kiro-learn`)).mode! & 0o777, 0o700);
    // The grant it prints is one the database takes, for the key sync matches on.
    const [grant] = joined.out.split("\n").filter((l) => l.trim().startsWith("INSERT INTO"));
    assert.equal(
      grant.trim(),
      `INSERT INTO kl_grants (role, project_key) VALUES ('alice', '${GRANTED}');`,
    );
    await pg.psql(grant, { db: "team" });
    const again = await kiroLearn(["team", "join", url, "--password-stdin"], {
      home,
      cwd: checkout.dir,
      stdin: "alice-pw",
    });
    assert.match(again.out, /projects granted: 1 \(this project, ~\/src\/pay, is one\)/);

    // PostgreSQL 15 lets no ordinary role create in schema public: that is what ops is told.
    const ops = pg.url({ user: "ops", password: "", db: "other" });
    const denied = await kiroLearn(["team", "migrate", ops, "--password-stdin"], {
      home,
      stdin: "ops-pw",
    });
    assert.equal(denied.code, 1, denied.out);
    assert.match(denied.out, /role "ops" may not create tables in schema public/);
    assert.match(denied.out, /GRANT CREATE ON SCHEMA public TO ops;/);
    assert.doesNotMatch(denied.out, /GRANT kiro_learn_member/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("team status: every local project shared or not and why, and grants that match nothing", async () => {
  const [pay, notes, scratch, stripped] = await gitProjectIds([
    "git@github.com:acme/pay.git",
    "https://github.com/acme/notes",
    null, // no remote: a key from this machine's path
    "https://github.com/acme/ledger",
  ]);
  const strippedKey = stripped.slice("git-".length); // an admin who dropped the prefix
  const lines = sharingLines(
    [
      { project_id: pay, display_name: "~/work/pay", memory_count: 3 },
      { project_id: pay, display_name: "~/work/pay", memory_count: 2 }, // a second actor
      { project_id: notes, display_name: "~/work/notes", memory_count: 1 },
      { project_id: scratch, display_name: "~/scratch", memory_count: 4 },
    ],
    [pay, strippedKey],
    "alice",
  );
  assert.equal(lines[0], "sharing by project:");
  assert.equal(lines[1], `  ~/work/pay (${pay}): shared`);
  assert.match(
    lines[2],
    new RegExp(
      `^  ~/work/notes \\(${notes}\\): not shared, not granted to role "alice"; its 1 record\\(s\\) ` +
        "stay on this machine",
    ),
  );
  assert.ok(
    lines[2].endsWith(`INSERT INTO kl_grants (role, project_key) VALUES ('alice', '${notes}');`),
  );
  assert.match(lines[3], /~\/scratch .*its 4 record\(s\).*has no git remote/);
  assert.match(lines[4], new RegExp(`^  ${strippedKey}: granted, but no project on this machine`));
  assert.equal(lines.length, 5);
  assert.deepEqual(sharingLines([], null, "alice"), [
    "sharing by project: not known yet (the collector has not reached the team database)",
  ]);
});

Deno.test("team migrate by a role that may create tables but not roles is told so", async () => {
  await using pg = await startTestPostgres();
  await pg.psql("CREATE DATABASE team; CREATE ROLE ops LOGIN PASSWORD 'ops-pw'");
  await pg.psql("GRANT CREATE ON SCHEMA public TO ops", { db: "team" });
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-team-cli-" });
  try {
    const ops = pg.url({ user: "ops", password: "", db: "team" });
    const denied = await kiroLearn(["team", "migrate", ops, "--password-stdin"], {
      home,
      stdin: "ops-pw",
    });
    assert.equal(denied.code, 1, denied.out);
    assert.match(denied.out, /role "ops" may not create roles.*CREATEROLE/);
    assert.match(denied.out, /CREATE ROLE kiro_learn_member NOLOGIN;/);
    // Done as told: the admin makes the group role, and ops migrates.
    await pg.psql("CREATE ROLE kiro_learn_member NOLOGIN");
    const migrated = await kiroLearn(["team", "migrate", ops, "--password-stdin"], {
      home,
      stdin: "ops-pw",
    });
    assert.equal(migrated.code, 0, migrated.out);
    assert.match(migrated.out, /applied team migration\(s\) 1, 2 as "ops"/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

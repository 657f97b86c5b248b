// The team docs page, walked as written, on a real PostgreSQL 15: the admin's SQL and commands are
// the page's marked blocks (read from the page), `team migrate` and `team join` run through the real
// CLI, and each member is a machine of their own (a home, a data dir, a collector daemon started by
// `kiro-learn start` on loopback). Alice and Bob have checkouts of one repository at different paths
// and by different remote forms (real `git init` + `git remote add`); the grants are run exactly as
// `team join` prints them. A memory Alice saves over MCP (the MCP SDK's client) is found by Bob's
// prompt hook (the real shim); Carol, of another team, sees none of it by SQL or through the
// product; a project of Alice's that is not granted stays on her machine, and `team status` says so.
import assert from "node:assert/strict";
import { loadSettings } from "@kiro-learn/core/settings";
import { fixtureText, runShimProcess } from "../../tooling/testing/mod.ts";
import {
  connectMcp,
  docCommand,
  freePort,
  type GitCheckout,
  gitCheckout,
  processText,
  runKiroLearn,
  startTestPostgres,
  teamDocBlock,
  TEST_PG_ADMIN,
  testServerUrl,
  waitFor,
} from "../../tooling/testing/mod.ts";
import { connectTeam } from "./mod.ts";

/** The fixture prompt's session (each hook run here gets a session of its own). */
const FIXTURE_SESSION = "3f2b8a6e-1c4d-4e9f-a7b2-5d6c8e0f1a23";
const MEMORY = {
  title: "Date parser leap-year bug",
  summary: "parseDate rejected February 29 in leap years because of a fixed days table.",
  observation_type: "error",
  concepts: ["leap-year", "date-parser"],
};
const PRIVATE = {
  title: "Notes index is rebuilt nightly",
  summary: "The notes search index is rebuilt by a nightly cron job, never on write.",
  observation_type: "discovery",
};

/** A developer's machine: a home, a data dir that does not exist until kiro-learn makes it. */
interface Machine {
  role: string;
  password: string;
  home: string;
  dataDir: string;
  env: Record<string, string>;
}

function machineOf(root: string, role: string): Machine {
  const home = `${root}/${role}`;
  const dataDir = `${home}/.kiro-learn`;
  return {
    role,
    password: `${role}-${crypto.randomUUID()}`,
    home,
    dataDir,
    env: { HOME: home, KIRO_LEARN_HOME: dataDir, USER: role, NO_COLOR: "1" },
  };
}

async function kiroLearn(
  m: Machine,
  args: string[],
  options: { cwd?: string; stdin?: string } = {},
): Promise<{ code: number; out: string }> {
  const output = await runKiroLearn(args, {
    env: m.env,
    cwd: options.cwd ?? m.home,
    stdin: options.stdin,
  });
  return { code: output.code, out: processText(output) };
}

/** The collector's own settings on this machine (a free loopback port; no embedding model). */
async function configureCollector(m: Machine): Promise<void> {
  await Deno.mkdir(m.dataDir, { recursive: true, mode: 0o700 });
  const path = `${m.dataDir}/settings.json`;
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(await Deno.readTextFile(path));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const next = {
    ...current,
    collector: { host: "127.0.0.1", port: freePort() },
    embedding: { backend: "off" },
  };
  await Deno.writeTextFile(path, JSON.stringify(next, null, 2));
}

async function startCollector(m: Machine): Promise<void> {
  const started = await kiroLearn(m, ["start"]);
  assert.equal(started.code, 0, started.out);
}

/** `/v1/stats` of a machine's collector (with its token, as the CLI calls it). */
async function stats(m: Machine): Promise<Record<string, unknown>> {
  const settings = loadSettings({ env: m.env });
  const token = (await Deno.readTextFile(settings.paths.token)).trim();
  const res = await fetch(
    `http://127.0.0.1:${settings.collector.port}/v1/stats`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  assert.equal(res.status, 200);
  return await res.json();
}

/** The team status a machine's collector reports. */
async function teamOf(m: Machine): Promise<Record<string, unknown>> {
  const team = (await stats(m)).team as Record<string, unknown> | null;
  assert.ok(team, `${m.role}'s collector runs without a team`);
  return team;
}

/** Runs the member-join block as `m`, in `checkout`; returns join's output. */
async function join(m: Machine, checkout: GitCheckout, port: number): Promise<string> {
  const [line] = teamDocBlock("member-join", "sh").split("\n").filter((l) => l.trim() !== "");
  const command = docCommand(line);
  assert.equal(command.stdinVariable, "PASSWORD");
  // The docs' member is alice: another member types their own role in the URL.
  const args = command.args.map((a) =>
    a.startsWith("postgres://") ? testServerUrl(a, { port, roles: { alice: m.role } }) : a
  );
  const joined = await kiroLearn(m, args, { cwd: checkout.dir, stdin: m.password });
  assert.equal(joined.code, 0, joined.out);
  return joined.out;
}

/** The grant `team join` printed: one line, run exactly as printed. */
function printedGrant(out: string, m: Machine, checkout: GitCheckout): string {
  const grants = out.split("\n").map((l) => l.trim()).filter((l) => l.startsWith("INSERT INTO"));
  assert.equal(grants.length, 1, out);
  assert.equal(
    grants[0],
    `INSERT INTO kl_grants (role, project_key) VALUES ('${m.role}', '${checkout.projectId}');`,
  );
  return grants[0];
}

/** Runs the Claude Code prompt hook (the shim) in `cwd` on `m`, in a session of its own. */
async function promptHook(m: Machine, cwd: string): Promise<string> {
  const payload = fixtureText("claude_code/user_prompt_submit.json", cwd)
    .replace(FIXTURE_SESSION, crypto.randomUUID());
  const run = await runShimProcess("claude-code", {
    settings: loadSettings({ env: m.env }),
    env: m.env,
    cwd,
    stdin: payload,
  });
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

async function saveOverMcp(
  m: Machine,
  cwd: string,
  memory: Record<string, unknown>,
): Promise<void> {
  const port = loadSettings({ env: m.env }).collector.port;
  await using mcp = await connectMcp({ port, env: m.env, cwd });
  const saved = await mcp.call("save_observation", memory);
  assert.equal(saved.isError, false, saved.text);
}

Deno.test("the team docs, walked as written: admin, two members, another team, a private project", async () => {
  await using pg = await startTestPostgres();
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-journey-" }));
  const admin = machineOf(root, "admin");
  const alice = machineOf(root, "alice");
  const bob = machineOf(root, "bob");
  const carol = machineOf(root, "carol");
  const machines = [admin, alice, bob, carol];
  for (const m of machines) await Deno.mkdir(m.home, { recursive: true });
  const adminSql = connectTeam(pg.url({ db: "kiro_learn_team", password: "" }), {
    password: pg.adminPassword,
  });
  try {
    // --- The admin: the database, the schema, the roles. ---
    await pg.psql(teamDocBlock("admin-database", "sql"));
    const [migrateLine] = teamDocBlock("admin-migrate", "sh").split("\n");
    const migrateCommand = docCommand(migrateLine);
    assert.equal(migrateCommand.stdinVariable, "ADMIN_PASSWORD");
    const migrated = await kiroLearn(
      admin,
      migrateCommand.args.map((a) =>
        a.startsWith("postgres://")
          ? testServerUrl(a, { port: pg.port, roles: { admin: TEST_PG_ADMIN } })
          : a
      ),
      { stdin: pg.adminPassword },
    );
    assert.equal(migrated.code, 0, migrated.out);
    assert.match(migrated.out, /applied team migration\(s\) 1, 2/);
    const roleLines = teamDocBlock("admin-roles", "sql").split("\n");
    const roleLine = (role: string) => {
      // The page's statement for alice, for a third developer the same with their name.
      const line = roleLines.find((l) => l.includes(`ROLE ${role} `)) ??
        roleLines.find((l) => l.includes("ROLE alice "))!.replaceAll("alice", role);
      const m = machines.find((x) => x.role === role)!;
      assert.ok(line.includes("'…'"), line);
      return line.replace("'…'", `'${m.password}'`);
    };
    for (const role of ["alice", "bob", "carol"]) await pg.psql(roleLine(role));

    // --- The checkouts: one repository, two paths, two remote forms; and two other projects. ---
    const payA = await gitCheckout(alice.home, "work/pay", "git@github.com:acme/pay.git");
    const notesA = await gitCheckout(alice.home, "work/notes", "git@github.com:acme/notes.git");
    const payB = await gitCheckout(bob.home, "src/acme-pay", "https://github.com/acme/pay");
    const payC = await gitCheckout(carol.home, "code/pay", "https://github.com/acme/pay");
    const billingC = await gitCheckout(
      carol.home,
      "code/billing",
      "git@github.com:globex/billing.git",
    );
    assert.equal(payA.projectId, payB.projectId, "one project in both checkouts");
    assert.match(payA.projectId, /^git-[0-9a-f]{64}$/);

    // --- Bob's collector already runs; Alice's machine has never run kiro-learn. ---
    await configureCollector(bob);
    await startCollector(bob);
    await assert.rejects(Deno.stat(alice.dataDir), Deno.errors.NotFound);

    // --- Each member joins in their checkout; the admin runs the grant as printed. ---
    const aliceJoin = await join(alice, payA, pg.port);
    assert.match(aliceJoin, /joined .* as role "alice"/);
    await pg.psql(printedGrant(aliceJoin, alice, payA), { db: "kiro_learn_team" });
    await configureCollector(alice);
    await startCollector(alice);
    const bobJoin = await join(bob, payB, pg.port);
    assert.match(bobJoin, /collector restarted/, "join restarts a running collector");
    await pg.psql(printedGrant(bobJoin, bob, payB), { db: "kiro_learn_team" });
    await configureCollector(carol);
    await startCollector(carol);
    const carolJoin = await join(carol, billingC, pg.port);
    await pg.psql(printedGrant(carolJoin, carol, billingC), { db: "kiro_learn_team" });

    // --- Alice saves over MCP, in the shared project and in one that is not granted. ---
    await saveOverMcp(alice, payA.dir, MEMORY);
    await saveOverMcp(alice, notesA.dir, PRIVATE);
    const published = await waitFor(async () => {
      const rows = await adminSql`SELECT project_key, body->>'title' AS title, origin_role
        FROM kl_records ORDER BY change_seq`;
      return rows.length > 0 ? rows : undefined;
    }, { what: "Alice's memory in the team database", timeoutMs: 60_000 });
    assert.deepEqual(published.map((r) => ({ ...r })), [
      { project_key: payA.projectId, title: MEMORY.title, origin_role: "alice" },
    ]);

    // --- Bob's prompt hook finds it: his first prompt there starts the pull, at once. ---
    const found = await waitFor(async () => {
      const out = await promptHook(bob, payB.dir);
      return out.includes(MEMORY.title) ? out : undefined;
    }, { what: "Bob's prompt hook to find Alice's memory", timeoutMs: 25_000, intervalMs: 500 });
    assert.ok(found.includes("February 29"), found);

    // --- Carol, of another team, sees nothing: by SQL ... ---
    const carolSql = connectTeam(pg.url({ user: "carol", password: "", db: "kiro_learn_team" }), {
      password: carol.password,
    });
    try {
      assert.deepEqual([...await carolSql`SELECT record_id FROM kl_records`], []);
      const grants = await carolSql`SELECT project_key FROM kl_grants`;
      assert.deepEqual(grants.map((g) => g.project_key), [billingC.projectId]);
    } finally {
      await carolSql.end();
    }
    // ... and through the product: her own checkout of the repository, two full sync cycles
    // after Bob had the memory.
    assert.doesNotMatch(await promptHook(carol, payC.dir), /leap-year/i);
    for (let i = 0; i < 2; i++) {
      const after = new Date().toISOString();
      await waitFor(async () => {
        const team = await teamOf(carol);
        return String(team.last_sync_at ?? "") > after ? true : undefined;
      }, { what: "a sync cycle of Carol's collector", timeoutMs: 30_000 });
    }
    assert.doesNotMatch(await promptHook(carol, payC.dir), /leap-year/i);
    assert.equal((await teamOf(carol)).pulled_records, 0);
    const carolStatus = await kiroLearn(carol, ["team", "status"]);
    assert.match(
      carolStatus.out,
      new RegExp(`\\(${payC.projectId}\\): not shared, not granted to role "carol"`),
    );

    // --- Alice's project that is not granted stays local, and team status says so. ---
    const aliceTeam = await waitFor(async () => {
      const team = await teamOf(alice);
      return team.backlog === 0 && team.last_error === null ? team : undefined;
    }, { what: "Alice's backlog to clear", timeoutMs: 30_000 });
    assert.deepEqual(aliceTeam.granted, [payA.projectId]);
    const [row] = await adminSql`SELECT count(*)::int AS n FROM kl_records
      WHERE project_key = ${notesA.projectId}`;
    assert.equal(row.n, 0, "nothing of the private project reached the team database");
    const statusLine = teamDocBlock("member-status", "sh").split("\n")[0];
    const aliceStatus = await kiroLearn(alice, docCommand(statusLine).args);
    assert.equal(aliceStatus.code, 0, aliceStatus.out);
    assert.match(aliceStatus.out, new RegExp(`\\(${payA.projectId}\\): shared`));
    assert.match(
      aliceStatus.out,
      new RegExp(
        `\\(${notesA.projectId}\\): not shared, not granted to role "alice"; its 1 record\\(s\\) ` +
          "stay on this machine",
      ),
    );

    // --- Alice leaves: local only, and she is told what the admin must revoke. ---
    const leaveLine = teamDocBlock("member-leave", "sh").split("\n")[0];
    const left = await kiroLearn(alice, docCommand(leaveLine).args);
    assert.equal(left.code, 0, left.out);
    assert.match(left.out, /REVOKE kiro_learn_member FROM alice;/);
    assert.match(left.out, /collector restarted/);
    assert.equal((await stats(alice)).team, null, "her collector runs without the team");
  } finally {
    await adminSql.end();
    for (const m of machines) {
      try {
        Deno.statSync(m.dataDir);
      } catch {
        continue;
      }
      const stopped = await kiroLearn(m, ["stop"]);
      assert.equal(stopped.code, 0, stopped.out);
    }
    await Deno.remove(root, { recursive: true });
  }
});

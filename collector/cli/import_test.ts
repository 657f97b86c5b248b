// `kiro-learn import` as a user runs it, on real git repositories built here with git (clones,
// forks with another origin, shallow clones unshallowed), against a real collector.
import assert from "node:assert/strict";
import { resolveProject } from "@kiro-learn/core/project";
import {
  createTeamDatabase,
  processText as text,
  runKiroLearn,
  startTeamDaemon,
  startTestDaemon,
  startTestPostgres,
  type TestDaemon,
  waitFor,
} from "../tooling/testing/mod.ts";
import { connectTeam } from "../daemon/team/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

function cli(args: string[], env: Record<string, string>, cwd = ROOT) {
  return runKiroLearn(args, { env, cwd });
}

async function git(dir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-C", dir, "-c", "user.name=T", "-c", "user.email=t@x", ...args],
    env: { GIT_AUTHOR_DATE: "", GIT_COMMITTER_DATE: "" },
  }).output();
  assert.equal(out.code, 0, `git ${args.join(" ")}: ${text(out)}`);
  return new TextDecoder().decode(out.stdout).trim();
}

/** A repository with `n` commits a day apart, one file each, and an origin. */
async function upstream(dir: string, n: number, origin: string): Promise<void> {
  await git(dir, "init", "-q", "-b", "main");
  for (let i = 1; i <= n; i++) {
    await Deno.writeTextFile(`${dir}/file${i}.c`, `${i}\n`);
    await git(dir, "add", `file${i}.c`);
    const date = new Date(Date.UTC(2026, 0, i)).toISOString();
    const out = await new Deno.Command("git", {
      args: [
        "-C",
        dir,
        "-c",
        "user.name=T",
        "-c",
        "user.email=t@x",
        "commit",
        "-q",
        "-m",
        `parser: step ${i}`,
      ],
      env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    }).output();
    assert.equal(out.code, 0, text(out));
  }
  await git(dir, "remote", "add", "origin", origin);
}

/** Every record of the project at `dir`, through the API. */
async function recordsOf(daemon: TestDaemon, dir: string): Promise<{ title: string }[]> {
  const ns = encodeURIComponent(resolveProject(dir).namespace);
  const res = await daemon.fetch(`/v1/memories?namespace=${ns}&limit=500`);
  assert.equal(res.status, 200);
  return (await res.json()).items;
}

Deno.test("import git: a fork with another origin gets its own memory", async () => {
  await using daemon = await startTestDaemon();
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-identity-" });
  try {
    const up = `${tmp}/upstream`, fork = `${tmp}/fork`;
    await Deno.mkdir(up);
    await upstream(up, 6, "https://example.com/team/app.git");
    await git(tmp, "clone", "-q", up, fork);
    await git(fork, "remote", "set-url", "origin", "https://example.com/someone/app-fork.git");
    assert.notEqual(resolveProject(up).project_id, resolveProject(fork).project_id);

    const first = await cli(["import", "git", up], daemon.env);
    assert.match(text(first), /6 added, 0 already present, 0 rejected/, text(first));
    const forked = await cli(["import", "git", fork], daemon.env);
    assert.match(text(forked), /6 added, 0 already present, 0 rejected/, text(forked));
    assert.equal((await recordsOf(daemon, up)).length, 6);
    assert.equal((await recordsOf(daemon, fork)).length, 6, "the fork's project has its memory");
    const found = await cli(["search", "parser step 3", "--json"], daemon.env, fork);
    assert.ok(
      JSON.parse(new TextDecoder().decode(found.stdout)).some((r: { title: string }) =>
        r.title === "parser: step 3"
      ),
      "search in the fork finds its commits",
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("import git: a shallow clone, unshallowed, stores each commit once", async () => {
  await using daemon = await startTestDaemon();
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-shallow-" });
  try {
    const up = `${tmp}/upstream`, shallow = `${tmp}/shallow`;
    await Deno.mkdir(up);
    await upstream(up, 6, "https://example.com/team/app.git");
    // A depth-2 clone: its root is the shallow boundary, not the repository's first commit.
    await git(tmp, "clone", "-q", "--depth", "2", `file://${up}`, shallow);
    const part = await cli(["import", "git", shallow], daemon.env);
    // The boundary commit's parent is not there: git shows the whole tree as its change.
    assert.match(text(part), /1 added, 0 already present, 0 rejected/, text(part));
    assert.match(text(part), /1 commit\(s\) at the shallow clone's boundary left out/);
    await git(shallow, "fetch", "-q", "--unshallow");
    const whole = await cli(["import", "git", shallow], daemon.env);
    assert.match(text(whole), /5 added, 1 already present, 0 rejected/, text(whole));
    const records = await recordsOf(daemon, shallow) as unknown as {
      title: string;
      files_touched: string[];
    }[];
    assert.deepEqual(
      records.map((r) => `${r.title}: ${r.files_touched.join(" ")}`).sort(),
      [1, 2, 3, 4, 5, 6].map((i) => `parser: step ${i}: file${i}.c`),
      "each commit once, with its own change",
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("import git: control bytes in a message stay in their field, and no commit is dropped", async () => {
  await using daemon = await startTestDaemon();
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-gitlog-" });
  try {
    await upstream(tmp, 2, "https://example.com/team/bytes.git");
    await Deno.writeTextFile(`${tmp}/odd.c`, "odd\n");
    await git(tmp, "add", "odd.c");
    await git(
      tmp,
      "commit",
      "-q",
      "-m",
      "lexer: odd \x1e record\x1f and unit\n\nwhy \x1f here\x1e too",
    );
    await Deno.writeTextFile(`${tmp}/after.c`, "after\n");
    await git(tmp, "add", "after.c");
    await git(tmp, "commit", "-q", "-m", "lexer: the commit after");
    const ok = await cli(["import", "git", tmp], daemon.env);
    assert.equal(ok.code, 0, text(ok));
    assert.match(text(ok), /4 added, 0 already present, 0 rejected/);
    const records = await recordsOf(daemon, tmp) as unknown as {
      title: string;
      summary: string;
      files_touched: string[];
    }[];
    const odd = records.find((r) => r.title.startsWith("lexer: odd"));
    assert.ok(odd, JSON.stringify(records.map((r) => r.title)));
    assert.equal(odd.title, "lexer: odd   record  and unit");
    assert.equal(odd.summary, "why   here  too");
    assert.deepEqual(odd.files_touched, ["odd.c"]);
    assert.ok(records.some((r) => r.title === "lexer: the commit after"));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("import git: a git log failure fails the import; a --since that is not a date is refused", async () => {
  await using daemon = await startTestDaemon();
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-gitfail-" });
  try {
    await upstream(tmp, 4, "https://example.com/team/broken.git");
    // A tree object gone: git log exits 128 part way; the import says so and exits non-zero.
    const tree = await git(tmp, "rev-parse", "HEAD~2^{tree}");
    await Deno.remove(`${tmp}/.git/objects/${tree.slice(0, 2)}/${tree.slice(2)}`);
    const broken = await cli(["import", "git", tmp], daemon.env);
    assert.notEqual(broken.code, 0, text(broken));
    assert.match(text(broken), /git log failed .*exit 128/);
    assert.match(text(broken), /git fsck/);

    const since = await cli(["import", "git", tmp, "--since", "not a date"], daemon.env);
    assert.equal(since.code, 2, text(since));
    assert.match(text(since), /--since "not a date" is not a date/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

/** Runs `deno task --config <checkout>/deno.json kiro-learn …` from `cwd`, as a user would. */
function denoTask(args: string[], env: Record<string, string>, cwd: string) {
  return new Deno.Command(Deno.execPath(), {
    args: ["task", "--config", `${ROOT}deno.json`, "kiro-learn", ...args],
    cwd,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "", ...env },
  }).output();
}

Deno.test("deno task kiro-learn: import git ., import jsonl FILE, import kiro-learn FILE and --project DIR resolve where the user is", async () => {
  await using daemon = await startTestDaemon();
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-initcwd-" });
  try {
    const repo = `${tmp}/iproute2`;
    await Deno.mkdir(repo);
    await upstream(repo, 2, "https://example.com/net/iproute2.git");
    const here = await denoTask(["import", "git", ".", "--max", "1"], daemon.env, repo);
    assert.equal(here.code, 0, text(here));
    assert.deepEqual((await recordsOf(daemon, repo)).map((r) => r.title), ["parser: step 2"]);
    const sub = await denoTask(["import", "git", "--project", "iproute2"], daemon.env, tmp);
    assert.equal(sub.code, 0, text(sub));
    assert.match(text(sub), /1 added, 1 already present/);
    const exported = await denoTask(
      ["export", "--project", "iproute2", "--output", "mem.jsonl"],
      daemon.env,
      tmp,
    );
    assert.equal(exported.code, 0, text(exported));
    assert.equal((await Deno.readTextFile(`${tmp}/mem.jsonl`)).trim().split("\n").length, 3);
    assert.equal((await Deno.stat(`${tmp}/mem.jsonl`)).mode! & 0o777, 0o600);
    const back = await denoTask(["import", "jsonl", "mem.jsonl"], daemon.env, tmp);
    assert.equal(back.code, 0, text(back));
    assert.match(text(back), /0 added, 2 already present/);
    await Deno.copyFile(`${ROOT}collector/cli/testdata/node_kiro_learn.db`, `${tmp}/old.db`);
    const node = await denoTask(["import", "kiro-learn", "old.db"], daemon.env, tmp);
    assert.equal(node.code, 0, text(node));
    assert.match(text(node), /imported records of .*old\.db: \d+ added/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("export files are private (0600), with --output or a shell redirect", async () => {
  await using daemon = await startTestDaemon();
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-export-mode-" });
  try {
    await upstream(tmp, 1, "https://example.com/team/modes.git");
    assert.equal((await cli(["import", "git", tmp], daemon.env)).code, 0);
    const out = await new Deno.Command("sh", {
      args: [
        "-c",
        `umask 022 && exec "$0" "$@" > "${tmp}/redirected.jsonl"`,
        Deno.execPath(),
        "run",
        "-A",
        `${ROOT}collector/main.ts`,
        "export",
        "--project",
        tmp,
      ],
      env: daemon.env,
    }).output();
    assert.equal(out.code, 0, text(out));
    assert.equal((await Deno.stat(`${tmp}/redirected.jsonl`)).mode! & 0o777, 0o600);
    assert.equal((await Deno.readTextFile(`${tmp}/redirected.jsonl`)).trim().split("\n").length, 2);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("import jsonl re-homes an export from a machine where the user had another name", async () => {
  await using alice = await startTestDaemon();
  await using bob = await startTestDaemon();
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-as-me-" });
  try {
    const repo = `${tmp}/app`;
    await Deno.mkdir(repo);
    await upstream(repo, 3, "https://example.com/team/app.git");
    const asAlice = { ...alice.env, USER: "alice", LOGNAME: "alice" };
    const asBob = { ...bob.env, USER: "bob", LOGNAME: "bob" };
    assert.equal((await cli(["import", "git", repo], asAlice)).code, 0);
    const exported = await cli(["export", "--project", repo, "-o", `${tmp}/alice.jsonl`], asAlice);
    assert.equal(exported.code, 0, text(exported));
    assert.match(await Deno.readTextFile(`${tmp}/alice.jsonl`), /\/actor\/alice\//);

    const kept = await cli(["import", "jsonl", `${tmp}/alice.jsonl`, "--keep-owner"], asBob);
    assert.match(text(kept), /3 added/);
    assert.match(text(kept), /belong to the user\(s\) alice, not to bob/);
    const search = async () =>
      JSON.parse(new TextDecoder().decode(
        (await cli(["search", "parser step", "--json"], asBob, repo)).stdout,
      )) as { title: string; namespace: string }[];
    assert.equal((await search()).length, 0, "kept under alice's name, bob finds nothing");

    // By default the file comes into the memory of the user who reads it in.
    await using carol = await startTestDaemon();
    const asCarol = { ...carol.env, USER: "carol", LOGNAME: "carol" };
    const rehomed = await cli(["import", "jsonl", `${tmp}/alice.jsonl`], asCarol);
    assert.equal(rehomed.code, 0, text(rehomed));
    assert.match(text(rehomed), /3 added, 0 already present/);
    assert.doesNotMatch(text(rehomed), /belong to/);
    const found = JSON.parse(new TextDecoder().decode(
      (await cli(["search", "parser step", "--json"], asCarol, repo)).stdout,
    )) as { namespace: string }[];
    assert.equal(found.length, 3);
    assert.ok(found.every((r) => r.namespace.startsWith("/actor/carol/")));
    // The same commits, imported from the repository by bob: already there, once.
    const again = await cli(["import", "git", repo], asCarol);
    assert.match(text(again), /0 added, 3 already present/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("import git on two machines of a team: each commit once per machine and once in the team database", async () => {
  await using pg = await startTestPostgres();
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-team-import-" });
  try {
    // One repository both machines work on (the team database takes path-derived project ids
    // only: see the report of issue 30), so both import the same commits of one project.
    const up = `${tmp}/app`;
    await Deno.mkdir(up, { recursive: true });
    await upstream(up, 4, "https://example.com/team/app.git");
    await git(up, "remote", "remove", "origin");
    const clone = up;
    const project = resolveProject(up).project_id;
    const members = [
      { role: "alice", password: "alice-pw", projects: [project] },
      { role: "bob", password: "bob-pw", projects: [project] },
    ];
    await createTeamDatabase(pg, { members });
    await using alice = await startTeamDaemon(pg, members[0]);
    await using bob = await startTeamDaemon(pg, members[1]);
    const asAlice = { ...alice.env, USER: "alice", LOGNAME: "alice" };
    const asBob = { ...bob.env, USER: "bob", LOGNAME: "bob" };
    const first = await cli(["import", "git", up], asAlice);
    assert.match(text(first), /4 added, 0 already present/, text(first));
    // Bob imports at once, before or while alice's records arrive: either way once.
    const second = await cli(["import", "git", clone], asBob);
    assert.equal(second.code, 0, text(second));
    const count = async (daemon: TestDaemon, actor: string) => {
      const ns = encodeURIComponent(`/actor/${actor}/project/${project}/`);
      return (await (await daemon.fetch(`/v1/memories?namespace=${ns}&limit=100`)).json()).total;
    };
    const team = async (daemon: TestDaemon) =>
      (await (await daemon.fetch("/v1/stats")).json()).team;
    // Both published; then a full cycle of each after that (its pull included).
    await waitFor(async () => {
      const [a, b] = [await team(alice), await team(bob)];
      return a?.backlog === 0 && b?.backlog === 0 && !a.last_error && !b.last_error
        ? true
        : undefined;
    }, { timeoutMs: 60_000, what: "both machines to publish" });
    const published = new Date().toISOString();
    await waitFor(async () => {
      const [a, b] = [await team(alice), await team(bob)];
      return a?.last_sync_at > published && b?.last_sync_at > published ? true : undefined;
    }, { timeoutMs: 60_000, what: "a sync cycle of each machine after both published" });
    assert.equal(await count(bob, "bob"), 4, "each commit once on bob's machine");
    assert.equal(await count(alice, "alice"), 4, "each commit once on alice's machine");
    const sql = connectTeam(pg.url({ db: "team", password: "" }), { password: pg.adminPassword });
    try {
      const [row] = await sql`SELECT count(*)::int AS n FROM kl_records
        WHERE project_key = ${project} AND state = 'live'`;
      assert.equal(row.n, 4, "each commit once in the team database");
    } finally {
      await sql.end();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

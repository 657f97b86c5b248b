// The `kiro-learn` command as a user runs it: a real process against a real collector.
import assert from "node:assert/strict";
import { resolveProject } from "@kiro-learn/core/project";
import {
  IMPOSTOR_INSTRUCTION,
  makeRecord,
  startImpostor,
  TEST_NAMESPACE,
} from "@kiro-learn/core/testing";
import {
  freePort,
  postJson,
  runKiroLearn,
  startTestDaemon,
  waitFor,
  writeTinyModel,
} from "../tooling/testing/mod.ts";
import { postCommitHook } from "./mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

function cli(args: string[], env: Record<string, string>, cwd = ROOT) {
  return runKiroLearn(args, { env, cwd });
}

function text(output: Deno.CommandOutput): string {
  return new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
}

Deno.test("CLI: start, status, search, forget, stop, and --help everywhere", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-cli-" });
  const env = { KIRO_LEARN_HOME: home, KIRO_LEARN_PORT: String(freePort()) };
  try {
    const help = await cli(["--help"], env);
    assert.equal(help.code, 0);
    for (const command of ["serve", "start", "stop", "status", "search", "forget"]) {
      assert.match(text(help), new RegExp(`\\b${command}\\b`));
      const sub = await cli([command, "--help"], env);
      assert.equal(sub.code, 0, command);
      assert.match(text(sub), /^usage: kiro-learn/);
    }
    const stopped = await cli(["status"], env);
    assert.equal(stopped.code, 3);
    assert.match(text(stopped), /status: stopped/);

    const started = await cli(["start"], env);
    assert.equal(started.code, 0, text(started));
    assert.match(text(started), /kiro-learn started at http:\/\/127\.0\.0\.1:\d+ \(pid \d+\)/);
    const again = await cli(["start"], env);
    assert.match(text(again), /already running/);

    const token = (await Deno.readTextFile(`${home}/token`)).trim();
    assert.equal((await Deno.stat(`${home}/token`)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(home)).mode! & 0o777, 0o700);
    const record = makeRecord({ title: "Leap year parsing", summary: "Feb 29 was rejected." });
    const saved = await fetch(`http://127.0.0.1:${env.KIRO_LEARN_PORT}/v1/memories`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(record),
    });
    assert.equal(saved.status, 200);
    await saved.body?.cancel();

    const status = await cli(["status"], env);
    assert.equal(status.code, 0);
    assert.match(text(status), /status: running/);
    assert.match(text(status), /memories: 1/);
    assert.match(text(status), /spool: 0 events, 0 of \d+ bytes/);

    const found = await cli(["search", "leap", "years", "--namespace", TEST_NAMESPACE], env);
    assert.equal(found.code, 0);
    assert.match(
      text(found),
      new RegExp(`1\\. \\[discovery\\] Leap year parsing  \\(${record.record_id}\\)`),
    );
    const badLimit = await cli(["search", "x", "--limit", "0"], env);
    assert.equal(badLimit.code, 2);
    assert.match(text(badLimit), /--limit must be an integer/);

    assert.equal((await cli(["forget", record.record_id], env)).code, 0);
    const missing = await cli(["forget", record.record_id], env);
    assert.equal(missing.code, 1);
    assert.match(text(missing), /no memory/);

    const stopping = await cli(["stop"], env);
    assert.match(text(stopping), /kiro-learn stopped/);
    assert.equal((await cli(["status"], env)).code, 3);
    await assert.rejects(Deno.stat(`${home}/collector.pid`), Deno.errors.NotFound);

    const unknown = await cli(["frobnicate"], env);
    assert.equal(unknown.code, 2);
    assert.match(text(unknown), /unknown command "frobnicate"/);
  } finally {
    await cli(["stop"], env);
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("replaying the sample session with no LLM yields searchable heuristic records", async () => {
  await using daemon = await startTestDaemon({
    settings: {
      extraction: { strategy: "auto", agentCommand: ["kiro-cli-is-not-installed"] },
      compaction: { enabled: false },
    },
  });
  // As the README says, with no --cwd: a new project in TMPDIR (a private one here, to see it go).
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-replay-tmp-" });
  try {
    const out = await cli(["replay", "shims/testdata/sample_session.ndjson"], {
      ...daemon.env,
      TMPDIR: tmp,
    });
    assert.equal(out.code, 0, text(out));
    const namespace = /\(namespace (\S+)\)/.exec(text(out))?.[1];
    assert.ok(namespace, text(out));
    assert.match(text(out), new RegExp(`kiro-learn search "<words>" --namespace ${namespace}`));
    assert.deepEqual([...Deno.readDirSync(tmp)], [], "the demo project's folder is gone");
    const project_id = namespace.split("/")[4];
    const flushed = await daemon.fetch(`/v1/extraction/flush?project_id=${project_id}`, {
      method: "POST",
    });
    assert.equal(flushed.status, 200);
    await flushed.body?.cancel();
    const search = async (query: string) => {
      const params = new URLSearchParams({ namespace, query });
      return await (await daemon.fetch(`/v1/memories/search?${params}`)).json() as {
        title: string;
        observation_type: string;
        strategy: string;
      }[];
    };
    const byFile = await search("date_parser.ts");
    assert.ok(byFile.length > 0, "the edited file is findable");
    assert.ok(byFile.every((r) => r.strategy === "heuristic"));
    const failing = await search("leap year test failure");
    assert.ok(failing.some((r) => r.observation_type === "error"), JSON.stringify(failing));
    const found = await cli(["search", "date_parser.ts", "--namespace", namespace], daemon.env);
    assert.match(text(found), /date_parser\.ts/, "the printed command finds the memory");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("CLI: models add installs a checked model, and refuses a folder without one", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-models-" });
  const src = await Deno.makeTempDir({ prefix: "tiny-model-" });
  try {
    await writeTinyModel(src, { dim: 8 });
    const ok = await cli(["models", "add", src, "--name", "tiny"], { KIRO_LEARN_HOME: home });
    assert.equal(ok.code, 0, text(ok));
    assert.match(text(ok), /installed onnx:tiny@[0-9a-f]{12} \(8 dimensions\)/);
    await Deno.stat(`${home}/models/tiny/model.onnx`);
    const empty = await Deno.makeTempDir();
    const bad = await cli(["models", "add", empty], { KIRO_LEARN_HOME: home });
    assert.equal(bad.code, 1);
    assert.match(text(bad), /model\.onnx/);
    await Deno.remove(empty, { recursive: true });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(src, { recursive: true });
  }
});

Deno.test("CLI: install, doctor and uninstall against a temporary home and project", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-home-" });
  const project = `${home}/code/app`;
  await Deno.mkdir(`${project}/.git`, { recursive: true });
  const claude = `${home}/.claude/settings.json`;
  await Deno.mkdir(`${home}/.claude`);
  const foreign = JSON.stringify(
    { model: "opus", hooks: { Stop: [{ hooks: [{ type: "command", command: "say done" }] }] } },
    null,
    2,
  ) + "\n";
  await Deno.writeTextFile(claude, foreign);
  const env = {
    HOME: home,
    KIRO_LEARN_HOME: `${home}/.kiro-learn`,
    KIRO_LEARN_PORT: String(freePort()),
    PATH: "/usr/bin:/bin",
  };
  try {
    const dry = await cli(["install", "--dry-run"], env, project);
    assert.equal(dry.code, 0, text(dry));
    assert.equal(await Deno.readTextFile(claude), foreign, "a dry run writes nothing");
    const installed = await cli(["install"], env, project);
    assert.equal(installed.code, 0, text(installed));
    const v3 = JSON.parse(await Deno.readTextFile(`${project}/.kiro/hooks/kiro-learn.json`));
    const command = v3.hooks[0].action.command as string;
    // A file a team commits names the launcher the same way on every machine.
    assert.equal(
      command,
      '"$HOME"/.kiro-learn/bin/hook-kiro-cli --agent-pid=$PPID || true # managed by kiro-learn',
    );
    for (const file of [".kiro/hooks/kiro-learn.json", ".kiro/settings/mcp.json"]) {
      const committed = await Deno.readTextFile(`${project}/${file}`);
      assert.ok(!committed.includes(home), `${file} holds no path of this machine`);
      assert.ok(!committed.includes(Deno.execPath()), `${file} names no Deno binary`);
    }
    const launcher = await Deno.readTextFile(`${home}/.kiro-learn/bin/hook-kiro-cli`);
    assert.match(launcher, /shims\/kiro_cli\.ts/);
    // Claude Code's launcher tries the collector's Unix socket first, the shim when that fails.
    const claudeLauncher = await Deno.readTextFile(`${home}/.kiro-learn/bin/hook-claude-code`);
    assert.match(claudeLauncher, /curl .*\n.*--unix-socket "\$sock"/);
    assert.match(claudeLauncher, /shims\/claude_code\.ts/);
    const merged = JSON.parse(await Deno.readTextFile(claude));
    assert.equal(merged.model, "opus");
    assert.equal(merged.hooks.Stop.length, 2, "ours sits next to the foreign hook");
    const again = await cli(["install"], env, project);
    assert.equal(again.code, 0);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(claude)), merged, "install twice = once");
    // Claude Code's memory tools: served by the collector over HTTP (Linux), or a stdio server.
    const mcpEntry = async () =>
      JSON.parse(await Deno.readTextFile(`${home}/.claude.json`)).mcpServers["kiro-learn-memory"];
    assert.deepEqual(await mcpEntry(), {
      type: "http",
      url: `http://127.0.0.1:${env.KIRO_LEARN_PORT}/v1/mcp`,
      headersHelper: 'exec "$HOME"/.kiro-learn/bin/mcp-headers',
    });
    const doc = await cli(["doctor"], env, project);
    assert.match(text(doc), /collector/i);
    assert.match(text(doc), /ok +mcp server: kiro-learn-memory in .*~\/\.claude\.json \(HTTP\)/);
    assert.equal(doc.code, 1, "the collector is not running, so doctor reports a failure");
    const stdio = await cli(["install", "--mcp", "stdio"], env, project);
    assert.equal(stdio.code, 0, text(stdio));
    assert.equal((await mcpEntry()).type, "stdio");
    assert.match((await mcpEntry()).args.join(" "), /mcp-server/);
    assert.equal((await cli(["install"], env, project)).code, 0);
    assert.equal((await mcpEntry()).type, "http");
    const removed = await cli(["uninstall", "--all"], env, project);
    assert.equal(removed.code, 0, text(removed));
    assert.match(text(removed), /the collector was not running/);
    assert.match(text(removed), /kept the memory in .*--purge/);
    assert.ok(
      (await Deno.stat(`${env.KIRO_LEARN_HOME}/settings.json`)).isFile,
      "data kept by default",
    );
    assert.equal(await Deno.readTextFile(claude), foreign, "uninstall restores the bytes");
    assert.deepEqual(
      [...Deno.readDirSync(`${env.KIRO_LEARN_HOME}/bin`)],
      [],
      "the launchers and the starter go with the hooks",
    );
    await assert.rejects(Deno.stat(`${project}/.kiro/hooks/kiro-learn.json`), Deno.errors.NotFound);
    await Deno.writeTextFile(claude, "{ not json");
    const broken = await cli(["install"], env, project);
    assert.equal(broken.code, 1);
    assert.match(text(broken), /settings\.json/);
    assert.equal(
      await Deno.readTextFile(claude),
      "{ not json",
      "an unparsable file is never overwritten",
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/** A real git repository with a remote, as a user's project is. */
async function gitProject(dir: string, remote: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  for (const args of [["init", "-q"], ["remote", "add", "origin", remote]]) {
    const out = await new Deno.Command("git", { args, cwd: dir, stdout: "null" }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  }
}

Deno.test("CLI: uninstall removes only the project's wiring; --all removes everything and says it stopped the collector", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  const shop = `${home}/code/shop`;
  const blog = `${home}/code/blog`;
  await gitProject(shop, "https://github.com/acme/shop.git");
  await gitProject(blog, "https://github.com/acme/blog.git");
  await Deno.mkdir(`${home}/.claude`); // Claude Code is installed: install wires it
  const env = {
    HOME: home,
    KIRO_LEARN_HOME: `${home}/.kiro-learn`,
    KIRO_LEARN_PORT: String(freePort()),
    PATH: "/usr/bin:/bin",
  };
  const hooks = (project: string) => `${project}/.kiro/hooks/kiro-learn.json`;
  const kiroMcp = (project: string) => `${project}/.kiro/settings/mcp.json`;
  const userClaude = `${home}/.claude/settings.json`;
  const exists = (path: string) => Deno.stat(path).then(() => true, () => false);
  try {
    // Each project gets its Kiro hooks and MCP entry; Claude Code's hooks are user-level.
    for (const project of [shop, blog]) {
      const out = await cli(["install"], env, project);
      assert.equal(out.code, 0, text(out));
    }
    const started = await cli(["start"], env, shop);
    assert.equal(started.code, 0, text(started));
    const pid = Number(text(started).match(/pid (\d+)/)![1]);
    const userWiring = await Deno.readTextFile(userClaude);
    assert.match(userWiring, /managed by kiro-learn/);

    // From shop's folder, no flag: shop's wiring only.
    const fromShop = await cli(["uninstall"], env, `${shop}`);
    assert.equal(fromShop.code, 0, text(fromShop));
    assert.equal(await exists(hooks(shop)), false, "shop's Kiro hooks are gone");
    assert.equal(await exists(hooks(blog)), true, "blog's stay");
    assert.equal(await exists(kiroMcp(shop)), false);
    assert.equal(await exists(kiroMcp(blog)), true);
    assert.equal(await Deno.readTextFile(userClaude), userWiring, "user-level wiring untouched");
    assert.ok(await exists(`${env.KIRO_LEARN_HOME}/bin/hook-claude-code`), "launchers stay");
    assert.ok(await exists(`/proc/${pid}`), "the collector still runs");
    assert.match(
      text(fromShop),
      new RegExp(`removed kiro-learn's wiring from the project ${shop}`),
    );
    assert.match(text(fromShop), /left alone: the user-level wiring .* the collector/);
    assert.match(text(fromShop), /`kiro-learn uninstall --all` removes everything/);

    // --project DIR from another folder: blog's wiring only; a second time there is nothing.
    const blogOnly = await cli(["uninstall", "--project", "../blog"], env, shop);
    assert.equal(blogOnly.code, 0, text(blogOnly));
    assert.equal(await exists(hooks(blog)), false);
    assert.equal(await exists(kiroMcp(blog)), false);
    assert.equal(await Deno.readTextFile(userClaude), userWiring);
    const twice = await cli(["uninstall", "--project", blog], env, shop);
    assert.match(text(twice), /nothing of kiro-learn's to remove in the project/);

    // Wrong uses change nothing and say why.
    for (const args of [["--purge"], ["--all", "--project", shop], ["--project", `${home}/nope`]]) {
      const bad = await cli(["uninstall", ...args], env, shop);
      assert.equal(bad.code, 2, `${args.join(" ")}: ${text(bad)}`);
      assert.match(text(bad), /--purge .* with --all|exclude each other|no such folder/);
    }
    assert.ok(await exists(`/proc/${pid}`));

    // --all: the user-level wiring and the scripts go, and it says it stopped the collector.
    const all = await cli(["uninstall", "--all"], env, blog);
    assert.equal(all.code, 0, text(all));
    assert.match(text(all), /stopped the collector/);
    assert.equal(await exists(userClaude), false, "install created it, uninstall removed it");
    assert.deepEqual([...Deno.readDirSync(`${env.KIRO_LEARN_HOME}/bin`)], []);
    await waitFor(async () => (await exists(`/proc/${pid}`)) ? undefined : true, {
      what: "the collector to exit",
    });
  } finally {
    await cli(["stop"], env).catch(() => {});
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("status says when the spool overflowed", async () => {
  await using daemon = await startTestDaemon();
  await Deno.mkdir(`${daemon.dataDir}/spool`, { recursive: true });
  await Deno.writeTextFile(`${daemon.dataDir}/spool/dropped.log`, "2026-11-22T00:00:00Z full\n");
  const stats = await (await daemon.fetch("/v1/stats")).json();
  assert.equal(stats.spool.dropped, 1);
  assert.equal(stats.spool.filling, true);
  const out = await cli(["status"], daemon.env);
  assert.match(text(out), /1 dropped because it was full \(FILLING/);
});

Deno.test("an invalid settings file stops the daemon with a message naming the key", async () => {
  const home = await Deno.makeTempDir();
  await Deno.writeTextFile(`${home}/settings.json`, JSON.stringify({ collector: { port: 99999 } }));
  try {
    const out = await cli(["serve"], { KIRO_LEARN_HOME: home });
    assert.notEqual(out.code, 0);
    assert.match(text(out), /collector\.port = 99999 is out of range/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("CLI: import git adds one record per commit, scrubbed, and a second import adds none", async () => {
  await using daemon = await startTestDaemon();
  const repo = await Deno.makeTempDir({ prefix: "kiro-learn-import-" });
  const git = (...args: string[]) =>
    new Deno.Command("git", {
      args: ["-C", repo, "-c", "user.name=T", "-c", "user.email=t@x", ...args],
      stdout: "null",
      stderr: "null",
    }).output();
  try {
    await git("init", "-q");
    for (
      const [file, message] of [
        ["a.ts", "parser: add the date parser"],
        [
          "b.ts",
          "parser: fix crash on Feb 29\n\nThe token ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked.\n\nSigned-off-by: T <t@x>",
        ],
        ["c.ts", "Merge-free change to c"],
      ]
    ) {
      await Deno.writeTextFile(`${repo}/${file}`, file);
      await git("add", file);
      await git("commit", "-q", "-m", message);
    }
    const first = await cli(["import", "git", repo], daemon.env);
    assert.equal(first.code, 0, text(first));
    assert.match(text(first), /3 added, 0 already present, 0 rejected/);
    const again = await cli(["import", "git", repo], daemon.env);
    assert.match(text(again), /0 added, 3 already present/);
    const found = await cli(["search", "Feb 29 crash", "--json"], daemon.env, repo);
    const records = JSON.parse(new TextDecoder().decode(found.stdout));
    assert.equal(records[0].title, "parser: fix crash on Feb 29");
    assert.equal(records[0].observation_type, "error");
    assert.deepEqual(records[0].files_touched, ["b.ts"]);
    assert.ok(!JSON.stringify(records).includes("ghp_abcdef"), "the token was scrubbed");
    assert.ok(!records[0].summary.includes("Signed-off-by"));
    // Forget one commit's record: importing the history again does not bring it back.
    assert.equal((await cli(["forget", records[0].record_id], daemon.env)).code, 0);
    const afterForget = await cli(["import", "git", repo], daemon.env);
    assert.equal(afterForget.code, 0, text(afterForget));
    assert.match(text(afterForget), /0 added, 2 already present, 1 forgotten \(not brought back\)/);
    // The post-commit hook brings new commits in by themselves (in the background).
    const hooked = await cli(["import", "git", repo, "--git-hook"], daemon.env);
    assert.equal(hooked.code, 0, text(hooked));
    assert.match(text(hooked), /added the post-commit hook/);
    await Deno.writeTextFile(`${repo}/d.ts`, "d");
    await git("add", "d.ts");
    await git("commit", "-q", "-m", "parser: handle the year 2100 (not a leap year)");
    await waitFor(async () => {
      const res = await cli(["search", "year 2100 leap", "--json"], daemon.env, repo);
      const found = JSON.parse(new TextDecoder().decode(res.stdout));
      return found.some((r: { title: string }) => r.title.includes("year 2100")) || undefined;
    }, { timeoutMs: 60_000, what: "the commit brought in by the post-commit hook" });
    const bad = await cli(["import", "git", "/"], daemon.env);
    assert.equal(bad.code, 2);
    assert.match(text(bad), /not inside a git repository/);
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});

Deno.test("CLI: import git of this repository's own history: every non-merge commit once, found by search, exported and imported back exactly", async () => {
  await using daemon = await startTestDaemon();
  const git = async (...args: string[]) => {
    const out = await new Deno.Command("git", { args: ["-C", ROOT, ...args] }).output();
    assert.equal(out.code, 0, text(out));
    return new TextDecoder().decode(out.stdout).trim();
  };
  const commits = Number(await git("rev-list", "--no-merges", "--count", "HEAD"));
  const first = await cli(["import", "git", ROOT], daemon.env);
  assert.equal(first.code, 0, text(first));
  assert.match(text(first), new RegExp(`: ${commits} added, 0 already present, .*0 rejected`));
  const again = await cli(["import", "git", ROOT], daemon.env);
  assert.match(text(again), new RegExp(`: 0 added, ${commits} already present`));
  // The first commit, by its own words, from the project's folder.
  const root = (await git("rev-list", "--max-parents=0", "HEAD")).split("\n")[0];
  const [subject, ...files] = (await git("show", "--format=%s", "--name-only", root))
    .split("\n").filter((l) => l !== "");
  const found = await cli(["search", subject, "--json", "--limit", "3"], daemon.env, ROOT);
  const records = JSON.parse(new TextDecoder().decode(found.stdout));
  const record = records.find((r: { title: string }) => r.title === subject);
  assert.ok(
    record,
    `${subject} in ${JSON.stringify(records.map((r: { title: string }) => r.title))}`,
  );
  assert.deepEqual([...record.files_touched].sort(), files.sort(), "its changed paths");
  // That real memory exported, imported into another collector and exported again: the same.
  await using other = await startTestDaemon();
  const exported = await cli(["export"], daemon.env, ROOT);
  assert.equal(exported.code, 0, text(exported));
  const lines = new TextDecoder().decode(exported.stdout).trim().split("\n");
  assert.equal(lines.length, commits + 1, "a header and every commit's record");
  const file = `${other.dataDir}/history.jsonl`;
  await Deno.writeTextFile(file, lines.join("\n") + "\n");
  const imported = await cli(["import", "jsonl", file], other.env, ROOT);
  assert.match(text(imported), new RegExp(`: ${commits} added, 0 already present, .*0 rejected`));
  const twice = await cli(["import", "jsonl", file], other.env, ROOT);
  assert.match(text(twice), new RegExp(`: 0 added, ${commits} already present`));
  const back = await cli(["export"], other.env, ROOT);
  const backLines = new TextDecoder().decode(back.stdout).trim().split("\n");
  assert.deepEqual(backLines.slice(1), lines.slice(1), "the same records, byte for byte");
});

Deno.test("postCommitHook keeps another tool's hook and replaces only its own block", () => {
  const options = { command: ["/opt/deno", "run", "x.ts"], dataDir: "/home/u/.kiro-learn" };
  const fresh = postCommitHook(null, options);
  assert.match(fresh, /^#!\/bin\/sh\n# >>> kiro-learn/);
  // Deno's update check off, as in every script that starts a deno (DENO_ENV).
  assert.match(
    fresh,
    /KIRO_LEARN_HOME=\/home\/u\/\.kiro-learn DENO_NO_UPDATE_CHECK=1 DENO_NO_PROMPT=1 \/opt\/deno run x\.ts .*&\n/,
  );
  const theirs = "#!/bin/sh\nmake lint\n";
  const merged = postCommitHook(theirs, options);
  assert.ok(merged.startsWith(theirs), "their hook stays first, as it was");
  const again = postCommitHook(merged, { ...options, command: ["/opt/deno2", "run", "x.ts"] });
  assert.equal(again.split("kiro-learn: new commits").length - 1, 1, "one block, refreshed");
  assert.match(again, /\/opt\/deno2/);
  assert.ok(again.startsWith(theirs));
});

Deno.test("CLI: export, then import jsonl into another collector, round-trips exactly", async () => {
  await using a = await startTestDaemon();
  await using b = await startTestDaemon();
  const project = await Deno.makeTempDir({ prefix: "kiro-learn-export-" });
  await Deno.mkdir(`${project}/.git`);
  const namespace = resolveProject(project).namespace;
  try {
    const kept = [1, 2, 3].map((i) =>
      makeRecord({ namespace, title: `record ${i}`, facts: [`fact ${i}`], files_touched: ["x.ts"] })
    );
    const forgotten = makeRecord({ namespace, title: "forgotten one" });
    for (const r of [...kept, forgotten]) {
      assert.equal((await postJson(a, "/v1/memories", r)).status, 200);
    }
    assert.equal(
      (await a.fetch(`/v1/memories/${forgotten.record_id}`, { method: "DELETE" })).status,
      200,
    );
    const exported = await cli(["export"], a.env, project);
    assert.equal(exported.code, 0, text(exported));
    const lines = new TextDecoder().decode(exported.stdout).trim().split("\n");
    assert.equal(JSON.parse(lines[0]).type, "kiro-learn-export");
    assert.equal(lines.length, 4, "a header and the three kept records; never the forgotten one");
    const file = `${project}/memory.jsonl`;
    await Deno.writeTextFile(file, lines.join("\n") + "\nnot json\n");
    const imported = await cli(["import", "jsonl", file], b.env, project);
    assert.match(text(imported), /3 added, 0 already present, 1 rejected/);
    assert.match(text(imported), /line 5: not JSON/);
    const again = await cli(["import", "jsonl", file], b.env, project);
    assert.match(text(again), /0 added, 3 already present/);
    const back = await cli(["export"], b.env, project);
    const backLines = new TextDecoder().decode(back.stdout).trim().split("\n");
    assert.deepEqual(backLines.slice(1), lines.slice(1), "the same records, byte for byte");
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("deno task kiro-learn acts on the project it was run from, not on the checkout", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-home-" });
  const project = await Deno.makeTempDir({ prefix: "kiro-learn-shop-api-" });
  await Deno.mkdir(`${project}/.git`);
  try {
    // A user's shell: no INIT_CWD of ours, deno task sets it.
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--config", `${ROOT}deno.json`, "kiro-learn", "install", "--dry-run"],
      cwd: project,
      clearEnv: true,
      env: { PATH: Deno.env.get("PATH") ?? "", HOME: home, KIRO_LEARN_HOME: `${home}/.kiro-learn` },
    }).output();
    assert.equal(out.code, 0, text(out));
    assert.ok(text(out).includes(`${project}/.kiro/hooks/kiro-learn.json`), text(out));
    assert.ok(!text(out).includes(`${ROOT}.kiro`), "nothing planned inside the checkout");
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("stop signals only this data dir's collector, never a pid an impostor names", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-stop-" });
  // A process that is not ours, and a listener on our port naming it as the collector.
  const victim = new Deno.Command("sleep", { args: ["30"] }).spawn();
  await using impostor = startImpostor({ pid: victim.pid });
  try {
    const out = await cli(["stop"], {
      KIRO_LEARN_HOME: home,
      KIRO_LEARN_PORT: String(impostor.port),
    });
    assert.match(text(out), /not this data dir's kiro-learn collector|not running/);
    // The victim is still running (a signalled child would have exited by now).
    const exited = await Promise.race([
      victim.status.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 500)),
    ]);
    assert.equal(exited, false, "stop signalled a process it could not prove was ours");
  } finally {
    victim.kill("SIGKILL");
    await victim.status;
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("one port, two users: start, status and doctor name the other collector and the way out", async () => {
  // Two data dirs with two tokens stand in for two users; theirs holds the port first.
  await using theirs = await startTestDaemon();
  const mine = await Deno.makeTempDir({ prefix: "kiro-learn-mine-" });
  const env = { KIRO_LEARN_HOME: mine, KIRO_LEARN_PORT: String(theirs.port) };
  const taken = new RegExp(
    `port ${theirs.port} is held by a process that is not this user's kiro-learn collector ` +
      "\\(another user's kiro-learn, or another program\\)",
  );
  try {
    // Before this user's first start there is no token: whatever listens is not ours.
    const first = await cli(["start"], env);
    assert.equal(first.code, 1, text(first));
    assert.match(text(first), taken);
    assert.match(text(first), /"collector": \{"port": …\}/);
    assert.doesNotMatch(text(first), /already running/);

    // With a token of this user's own (a collector of theirs ran here before), the same.
    await Deno.writeTextFile(`${mine}/token`, "mine-0123456789abcdef0123456789abcdef\n", {
      mode: 0o600,
    });
    const again = await cli(["start"], env);
    assert.equal(again.code, 1, text(again));
    assert.match(text(again), taken);

    const status = await cli(["status"], env);
    assert.equal(status.code, 3, text(status));
    assert.match(text(status), /status: port taken/);
    assert.match(text(status), taken);
    assert.doesNotMatch(text(status), new RegExp(`pid: ${theirs.pid()}`));

    const doctor = await cli(["doctor"], env);
    assert.match(text(doctor), taken);

    // Theirs was sent no token of ours, and still runs on its own.
    assert.equal((await theirs.fetch("/v1/stats")).status, 200);

    // The way out: a port of this user's own, and both run.
    const own = freePort();
    await Deno.writeTextFile(`${mine}/settings.json`, JSON.stringify({ collector: { port: own } }));
    const moved = await cli(["start"], { KIRO_LEARN_HOME: mine });
    assert.equal(moved.code, 0, text(moved));
    assert.match(text(moved), new RegExp(`started at http://127.0.0.1:${own}`));
    const stopped = await cli(["stop"], { KIRO_LEARN_HOME: mine });
    assert.equal(stopped.code, 0, text(stopped));
  } finally {
    await cli(["stop"], { KIRO_LEARN_HOME: mine });
    await Deno.remove(mine, { recursive: true });
  }
});

Deno.test("status and search refuse a listener that cannot prove it is the collector, sending no token", async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-impostor-" });
  const token = "cli-secret-token-0123456789";
  await Deno.writeTextFile(`${home}/token`, `${token}\n`, { mode: 0o600 });
  await using impostor = startImpostor();
  const port = impostor.port;
  const env = { KIRO_LEARN_HOME: home, KIRO_LEARN_PORT: String(port) };
  try {
    const status = await cli(["status"], env);
    assert.equal(status.code, 3, text(status));
    assert.match(text(status), /status: port taken/);
    assert.match(
      text(status),
      new RegExp(`port ${port} is held by a process that is not this user's kiro-learn collector`),
    );
    assert.ok(!text(status).includes(IMPOSTOR_INSTRUCTION));
    assert.doesNotMatch(text(status), /status: running|memories: 7/);
    const search = await cli(["search", "leap", "years"], env);
    assert.equal(search.code, 1, text(search));
    assert.match(
      text(search),
      new RegExp(`listening at 127\\.0\\.0\\.1:${port} could not prove it is this data dir's`),
    );
    assert.match(text(search), new RegExp(`lsof -i :${port}`));
    assert.match(text(search), /"collector": \{"port": …\} in settings\.json/);
    assert.ok(!text(search).includes(IMPOSTOR_INSTRUCTION));
    assert.doesNotMatch(text(search), /status: running|memories: 7/);
    assert.ok(
      impostor.seen.some((s) => s.path.startsWith("/hello?")),
      "the CLI did ask the listener",
    );
    for (const request of impostor.seen) {
      assert.equal(request.auth, null, `the token went to ${request.path}`);
      assert.ok(!request.path.includes(token));
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

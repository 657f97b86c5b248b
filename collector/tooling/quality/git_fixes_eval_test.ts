import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runDenoScript } from "@kiro-learn/core/testing";
import { resolveProject } from "@kiro-learn/core/project";
import { commitRecord } from "../../cli/mod.ts";
import { fixesQueries, windowCommits } from "./git_fixes_eval.ts";

const SCRIPT = fileURLToPath(new URL("./git_fixes_eval.ts", import.meta.url));

// A scratch repository and a helper that commits one file with a message, returning its sha.
// Each commit is a day after the one before, so a date says which commit it came from.
async function scratchRepo() {
  const repo = await Deno.makeTempDir({ prefix: "kiro-learn-fixes-" });
  const git = async (args: string[], env: Record<string, string> = {}) => {
    const out = await new Deno.Command("git", {
      args: ["-C", repo, "-c", "user.name=T", "-c", "user.email=t@x", ...args],
      env,
      stdout: "piped",
      stderr: "null",
    }).output();
    assert.ok(out.success, `git ${args.join(" ")}`);
    return new TextDecoder().decode(out.stdout).trim();
  };
  let day = 0;
  const commit = async (file: string, message: string) => {
    await Deno.writeTextFile(`${repo}/${file}`, message);
    await git(["add", file]);
    const date = new Date(Date.UTC(2026, 0, 1 + day++)).toISOString();
    await git(["commit", "-q", "-m", message], {
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    });
    return await git(["rev-parse", "HEAD"]);
  };
  await git(["init", "-q"]);
  return { repo, commit };
}

Deno.test("fixesQueries: a fix asks for the commit it names; reverts, repeats and unknown targets ask nothing, every fix leaves the pool", async () => {
  const { repo, commit } = await scratchRepo();
  try {
    const bug = await commit("a.c", "netdev: add the offload path");
    const fix = await commit("a.c", `netdev: fix crash in offload\n\nFixes: ${bug.slice(0, 12)}`);
    const revert = await commit("b.c", `Revert "netdev: add x"\n\nFixes: ${bug.slice(0, 12)}`);
    const outside = await commit("c.c", 'dpif: fix leak\n\nFixes: 0123456789ab ("gone")');
    const again = await commit("d.c", `netdev: fix crash in offload\n\nFixes: ${bug}`);

    const commits = await windowCommits(repo, { max: 10 });
    assert.deepEqual(commits.map((c) => c.sha), [again, outside, revert, fix, bug]);
    assert.deepEqual(commits[3].files, ["a.c"]);
    const options = { namespace: resolveProject(repo).namespace };
    const { queries, fixing } = fixesQueries(commits, options);
    // The newest of two fixes with one subject asks; the revert and the fix of a commit outside
    // the window ask nothing; all four fixing commits leave the pool.
    assert.deepEqual(queries, [{
      query: "netdev: fix crash in offload",
      relevant: [commitRecord(commits[4], options).record_id],
      fixed_at: commits[0].date,
    }]);
    assert.deepEqual([...fixing].sort(), [again, outside, revert, fix].sort());
    assert.equal((await windowCommits(repo, { max: 2 })).length, 2);
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});

Deno.test("windowCommits: a directory that is not a repository is a clear error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-fixes-" });
  try {
    await assert.rejects(windowCommits(dir, { max: 5 }), /git log in .* failed: is it a git/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("git_fixes_eval --count: counts the window's fixes, queries and pool, imports nothing", async () => {
  const { repo, commit } = await scratchRepo();
  try {
    const bug = await commit("a.c", "netdev: add the offload path");
    await commit("b.c", "dpif: tidy");
    await commit("a.c", `netdev: fix crash in offload\n\nFixes: ${bug.slice(0, 12)}`);
    await commit("c.c", 'dpif: fix leak\n\nFixes: 0123456789ab ("gone")');
    const { code, stdout, stderr } = await runDenoScript(SCRIPT, {
      args: [repo, "--count"],
      cwd: repo,
    });
    assert.equal(code, 0, stderr);
    assert.match(
      stdout,
      /: 4 commits \(oldest \S+\), 2 with a Fixes: trailer, 1 queries, pool 2 records\n$/,
    );
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});

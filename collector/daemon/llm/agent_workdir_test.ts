import assert from "node:assert/strict";
import { runGit } from "@kiro-learn/core/testing";
import { AgentWorkdirError, prepareAgentWorkdir } from "./agent_workdir.ts";

Deno.test("prepareAgentWorkdir: creates the folder 0700 (tightens a wider one) and stops git at the data dir", async () => {
  // The data dir inside a repository: git run in the agent folder must not find it.
  const repo = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-workdir-" }));
  try {
    await runGit(repo, "init", "-q");
    const dir = `${repo}/data/agent-workdir`;
    const workdir = prepareAgentWorkdir(dir);
    assert.equal(workdir.cwd, dir);
    assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
    assert.deepEqual(workdir.env, { GIT_CEILING_DIRECTORIES: `${repo}/data` });
    Deno.chmodSync(dir, 0o755);
    prepareAgentWorkdir(dir);
    assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
    const git = await new Deno.Command("git", {
      args: ["rev-parse", "--show-toplevel"],
      cwd: workdir.cwd,
      env: workdir.env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(git.success, false, "git found a repository around the agent folder");
    assert.match(new TextDecoder().decode(git.stderr), /not a git repository/);
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});

Deno.test("prepareAgentWorkdir: a file or a repository in its place is refused with what to do", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-workdir-" });
  try {
    await Deno.writeTextFile(`${dir}/agent-workdir`, "");
    assert.throws(
      () => prepareAgentWorkdir(`${dir}/agent-workdir`),
      (e: Error) => e instanceof AgentWorkdirError && /is not a folder: remove it/.test(e.message),
    );
    await Deno.symlink(dir, `${dir}/link`);
    assert.throws(
      () => prepareAgentWorkdir(`${dir}/link`),
      (e: Error) => e instanceof AgentWorkdirError && /is not a folder/.test(e.message),
    );
    await Deno.mkdir(`${dir}/other/.git`, { recursive: true });
    assert.throws(
      () => prepareAgentWorkdir(`${dir}/other`),
      (e: Error) =>
        e instanceof AgentWorkdirError && /is a git repository: remove its \.git/.test(e.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

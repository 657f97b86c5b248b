import assert from "node:assert/strict";
import { gitRemoteProject, runGit, seedRepo } from "./git_repo.ts";

Deno.test("seedRepo makes a repository with one commit; runGit reports failures with stderr", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kl_git_repo_" });
  try {
    const repo = await seedRepo(`${dir}/r`);
    assert.equal(await runGit(repo, "rev-list", "--count", "HEAD"), "1");
    await assert.rejects(
      runGit(repo, "remote", "remove", "nowhere"),
      /git remote remove nowhere failed: .+/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gitRemoteProject: two checkouts of one remote in different URL forms share an id", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kl_git_repo_" });
  try {
    const ssh = await gitRemoteProject(dir, "a", { remote: "git@github.com:acme/pay.git" });
    const https = await gitRemoteProject(dir, "b", { remote: "https://github.com/acme/pay" });
    const other = await gitRemoteProject(dir, "c", { remote: "https://github.com/acme/plans" });
    assert.match(ssh.projectId, /^git-[0-9a-f]{64}$/);
    assert.equal(https.projectId, ssh.projectId);
    assert.notEqual(other.projectId, ssh.projectId);
    assert.equal(
      await runGit(ssh.dir, "remote", "get-url", "origin"),
      "git@github.com:acme/pay.git",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

import assert from "node:assert/strict";
import { runGit, seedRepo } from "./git_repo.ts";

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

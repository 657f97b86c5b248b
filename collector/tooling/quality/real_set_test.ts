// The set's queries dated from a real git repository: what `--fix-clones` gives the trainer and
// the feature experiment.
import assert from "node:assert/strict";
import { addFixDates, type RealQuery } from "./real_set.ts";

async function git(dir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-C", dir, ...args],
    env: {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
      GIT_COMMITTER_DATE: "2025-03-04T05:06:07+00:00",
    },
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

function query(id: string, fixingSha: string): RealQuery {
  return {
    query_id: id,
    query: "fix it",
    namespace: "/n/",
    relevant: [],
    repo: "r",
    fixing_sha: fixingSha,
  };
}

Deno.test("addFixDates dates each query by its fixing commit, and refuses an unknown one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await git(dir, "init", "-q");
    await git(dir, "commit", "-q", "--allow-empty", "-m", "fix: it");
    const sha = await git(dir, "rev-parse", "HEAD");
    const queries = [query("q1", sha)];
    await addFixDates(queries, [dir]);
    assert.equal(Date.parse(queries[0].fixed_at!), Date.parse("2025-03-04T05:06:07Z"));

    const unknown = [query("q2", sha), query("q3", "0".repeat(40))];
    await assert.rejects(() => addFixDates(unknown, [dir]), /1 fixing commits are in none of/);
    assert.equal(unknown[0].fixed_at, undefined, "a refused call dates nothing");
    await assert.rejects(() => addFixDates(queries, [`${dir}/nowhere`]), /git log in .* failed/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

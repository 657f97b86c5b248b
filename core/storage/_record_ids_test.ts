// A store written before the identity rule: commit records of real commits (a repository built
// here with git) under the old ids (root commits + sha), one commit twice (a shallow clone's
// root, then the full history's), one shown in a retrieval, team capture on. Opening it with
// this build gives every record the rule's id and keeps everything else.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { derivedUlid, RECORD_ID_PREFIX } from "../ids.ts";
import { canonicalRecordId, resolveProject, sha256 } from "../project/mod.ts";
import { makeRecord } from "../testing/mod.ts";
import { migrate, MIGRATIONS } from "./migrations.ts";
import { openSqliteStorage, SqliteStorage } from "./sqlite.ts";

async function git(dir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-C", dir, "-c", "user.name=T", "-c", "user.email=t@x", ...args],
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

// How `import git` derived a commit record's id before the rule.
function oldId(roots: string, sha: string, time: number): string {
  return RECORD_ID_PREFIX + derivedUlid(time, sha256(`${roots}\n${sha}`));
}

Deno.test("migration 12 gives old commit records the rule's ids, drops a commit's second copy, keeps retrievals and tells the team", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-rekey-" });
  try {
    const repo = `${tmp}/repo`;
    await Deno.mkdir(repo);
    await git(repo, "init", "-q");
    for (const i of [1, 2, 3]) {
      await Deno.writeTextFile(`${repo}/f${i}`, `${i}`);
      await git(repo, "add", `f${i}`);
      await git(repo, "commit", "-q", "-m", `step ${i}`);
    }
    await git(repo, "remote", "add", "origin", "https://example.com/team/rekey.git");
    const { namespace } = resolveProject(repo);
    const shas = (await git(repo, "rev-list", "--reverse", "HEAD")).split("\n");
    const roots = shas[0];
    const commit = (sha: string, id: string) => {
      const created = new Date(Number(0x18f0000000) + shas.indexOf(sha) * 1000).toISOString();
      return makeRecord({
        record_id: id,
        namespace,
        strategy: "git-commit",
        title: `step ${shas.indexOf(sha) + 1}`,
        facts: [`commit ${sha} by T`],
        source_event_ids: [id.slice(3)],
        created_at: created,
      });
    };
    const time = (i: number) => Number(0x18f0000000) + i * 1000;
    const old = shas.map((sha, i) => commit(sha, oldId(roots, sha, time(i))));
    // The shallow clone's copy of the newest commit: its boundary was its root.
    const shallowCopy = commit(shas[2], oldId(shas[2], shas[2], time(2)));
    const other = makeRecord({ namespace, title: "a session's own record" });

    const path = `${tmp}/kiro-learn.db`;
    const db = new DatabaseSync(path);
    migrate(db, MIGRATIONS.filter((m) => m.version < 12));
    const before = new SqliteStorage(db);
    for (const r of [...old, shallowCopy, other]) await before.putRecord(r);
    await before.logRetrieval({
      namespace,
      query: "step",
      results: [{ record_id: old[0].record_id, score: 1 }],
      latency_ms: 1,
      tokens: 1,
      outcome: "ok",
    });
    db.exec("UPDATE team_state SET value = '1' WHERE key = 'capture'");
    db.exec("DELETE FROM team_outbox");
    db.close();

    const after = openSqliteStorage(path);
    try {
      const page = await after.listRecords({ namespace, limit: 100, offset: 0 });
      assert.equal(page.total, 4, "three commits once each, and the other record");
      const ids = page.items.map((r) => r.record_id).sort();
      const wanted = old.map((r) => canonicalRecordId(r));
      for (const id of wanted) assert.ok(ids.includes(id), `${id} in ${ids}`);
      assert.ok(ids.includes(other.record_id), "a record made here keeps its id");
      for (const r of [...old, shallowCopy]) assert.ok(!ids.includes(r.record_id));
      const [first] = await after.getRecords([wanted[0]]);
      assert.deepEqual(first.source_event_ids, [wanted[0].slice(3)]);
      const shown = after.db.prepare("SELECT record_id FROM retrieval_records").all();
      assert.deepEqual(shown.map((r) => r.record_id), [wanted[0]]);
      const outbox = after.db.prepare("SELECT record_id, op FROM team_outbox ORDER BY seq").all()
        .map((r) => `${r.op} ${r.record_id}`);
      for (const r of old) assert.ok(outbox.includes(`gone ${r.record_id}`), "old id withdrawn");
      for (const id of wanted) assert.ok(outbox.includes(`put ${id}`), "new id published");
      assert.ok(outbox.includes(`gone ${shallowCopy.record_id}`), "the second copy withdrawn");
    } finally {
      after.close();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

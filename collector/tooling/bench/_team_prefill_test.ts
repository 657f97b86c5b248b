// The bench's fill, in a Worker: the records land in the real SQLite file, with their ids.
import assert from "node:assert/strict";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { buildNamespace } from "@kiro-learn/core/project";
import { gitRemoteProject } from "@kiro-learn/core/testing";
import { prefill, prefillInWorker } from "./_team_prefill.ts";

Deno.test("a fill in a Worker stores its records while this thread goes on", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-prefill-" });
  try {
    const { projectId } = await gitRemoteProject(dir, "pay", {
      remote: "https://github.com/acme/pay",
    });
    const path = `${dir}/kiro-learn.db`;
    const namespace = buildNamespace("alice", projectId);
    const first = await prefill({ path, namespace, n: 10 });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const ids = await prefillInWorker({ path, namespace, n: 1500, from: 10 });
    clearInterval(timer);
    assert.equal(ids.length, 1500);
    assert.equal(new Set([...first, ...ids]).size, 1510, "every stretch has its own ids");
    assert.ok(ticks > 0, "this thread's timers ran during the fill");
    const store = openSqliteStorage(path);
    try {
      assert.equal((await store.getRecords([...first, ...ids])).length, 1510);
    } finally {
      store.close();
    }
    await assert.rejects(
      prefillInWorker({ path: `${dir}/no/such/dir/x.db`, namespace, n: 1 }),
      /prefill failed/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// The throwaway PostgreSQL: runs as an unprivileged user, answers on its port, and leaves no
// process or folder behind.
import assert from "node:assert/strict";
import { startTestPostgres } from "./postgres.ts";

function postgresPids(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (cmdline.includes(dataDir)) pids.push(Number(entry.name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

Deno.test("a test cluster runs unprivileged, survives a crash and restart, and is cleaned up", async () => {
  let dataDir = "";
  {
    await using pg = await startTestPostgres();
    dataDir = pg.dataDir;
    const [postmaster] = postgresPids(dataDir);
    assert.ok(postmaster, "the server runs");
    const uid = Number(
      /Uid:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${postmaster}/status`))![1],
    );
    assert.notEqual(uid, 0, "never as root");
    assert.equal((await pg.psql("SELECT current_user")).trim(), "kl_admin");
    await pg.kill();
    assert.deepEqual(postgresPids(dataDir), []);
    await pg.restart();
    assert.equal((await pg.psql("SELECT 41 + 1")).trim(), "42");
  }
  assert.deepEqual(postgresPids(dataDir), [], "no server outlives the test");
  assert.equal(await Deno.stat(dataDir).then(() => true, () => false), false);
});

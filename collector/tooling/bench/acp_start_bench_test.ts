import assert from "node:assert/strict";
import { measureAcpStart } from "./acp_start_bench.ts";

Deno.test("acp-start bench: whole sessions of the real claude-code-acp, timed, nothing left behind", async () => {
  const before = [...Deno.readDirSync("/tmp")].filter((e) =>
    e.name.startsWith("kiro-learn-acp-start-")
  );
  const figures = await measureAcpStart({ runs: 1, hogs: 1 });
  assert.match(figures.agent, /^@zed-industries\/claude-code-acp@/);
  assert.equal(figures.fresh_home.runs, 1);
  assert.equal(figures.same_home.runs, 1);
  assert.ok(figures.fresh_home.median_ms > 0 && figures.same_home.median_ms > 0);
  const after = [...Deno.readDirSync("/tmp")].filter((e) =>
    e.name.startsWith("kiro-learn-acp-start-")
  );
  assert.equal(after.length, before.length, "its temp folder is gone");
});

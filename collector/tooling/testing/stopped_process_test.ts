import assert from "node:assert/strict";
import { processState, startStoppedProcess } from "./stopped_process.ts";

Deno.test("a stopped process reads T until a SIGCONT resumes it; a gone one reads empty", async () => {
  let pid: number;
  {
    await using stopped = await startStoppedProcess();
    pid = stopped.pid;
    assert.equal(processState(pid), "T");
    stopped.kill("SIGCONT");
    const deadline = Date.now() + 10_000;
    while (processState(pid) === "T") {
      assert.ok(Date.now() < deadline);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  assert.equal(processState(pid), "");
});

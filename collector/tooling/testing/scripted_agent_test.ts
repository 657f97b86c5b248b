import assert from "node:assert/strict";
import { scriptedAgent } from "./scripted_agent.ts";

Deno.test("a scripted agent's temp dir goes when it is disposed", async () => {
  let dir = "";
  {
    await using agent = await scriptedAgent([{ reply: "ok" }]);
    // The script path is the agent's first argument after the program (see scripted_agent.ts).
    dir = agent.env.SCRIPTED_AGENT_SCRIPT.replace(/\/script\.json$/, "");
    assert.ok(Deno.statSync(dir).isDirectory);
  }
  assert.throws(() => Deno.statSync(dir), Deno.errors.NotFound, `${dir} was left behind`);
});

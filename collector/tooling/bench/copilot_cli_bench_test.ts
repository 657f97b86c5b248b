import assert from "node:assert/strict";
import { COPILOT_SETUPS } from "./copilot_cli_bench.ts";
import { benchInChild, figureProblems } from "./agent_bench.ts";

Deno.test("copilot-cli bench: one round of whole copilot -p sessions per setup, paired with the one without kiro-learn, nothing left behind", async () => {
  const { figures, left } = await benchInChild(
    new URL("./copilot_cli_bench.ts", import.meta.url),
    ["--runs=1", "--warmup=0", "--quick"],
  );
  assert.deepEqual(figureProblems(figures, COPILOT_SETUPS, 1), []);
  assert.equal(figures.hogs, 0);
  assert.match(String(figures.copilot_cli), /^\d+\.\d+\.\d+$/);
  assert.deepEqual(left, [], "its sandboxes are gone");
});

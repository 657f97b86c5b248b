import assert from "node:assert/strict";
import { GEMINI_SETUPS } from "./gemini_cli_bench.ts";
import { benchInChild, figureProblems } from "./agent_bench.ts";

Deno.test("gemini-cli bench: one round of whole gemini -p sessions per setup, paired with the one without kiro-learn, nothing left behind", async () => {
  const { figures, left } = await benchInChild(
    new URL("./gemini_cli_bench.ts", import.meta.url),
    ["--runs=1", "--warmup=0", "--quick"],
  );
  assert.deepEqual(figureProblems(figures, GEMINI_SETUPS, 1), []);
  assert.equal(figures.hogs, 0);
  assert.match(String(figures.gemini_cli), /^\d+\.\d+\.\d+$/);
  assert.deepEqual(left, [], "its sandboxes are gone");
});

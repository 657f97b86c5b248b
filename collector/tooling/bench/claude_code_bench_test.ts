import assert from "node:assert/strict";
import { claudeBenchOptions } from "./claude_code_bench.ts";
import { benchInChild, figureProblems } from "./agent_bench.ts";

Deno.test("claude-code bench: options from the command line", () => {
  assert.deepEqual(claudeBenchOptions(["--mcp-only", "--tools=3", "--hogs=2", "--runs=4"]), {
    runs: 4,
    warmup: 1,
    hogs: 2,
    quick: false,
    setups: null,
    mcpOnly: true,
    tools: 3,
  });
  assert.throws(
    () => claudeBenchOptions(["--tools=0"]),
    /--tools must be an integer of at least 1/,
  );
});

Deno.test("claude-code bench: one round of whole claude -p sessions per setup beside a busy process, paired with the one without kiro-learn, nothing left behind", async () => {
  const { figures, left } = await benchInChild(
    new URL("./claude_code_bench.ts", import.meta.url),
    ["--runs=1", "--warmup=0", "--hogs=1"],
  );
  const setups = [
    "without_kiro_learn",
    "with_kiro_learn",
    "with_kiro_learn_stdio_mcp",
    "hooks_only",
    "hooks_shim_only",
  ].map((key) => ({ key, hooks: key !== "without_kiro_learn" }));
  assert.deepEqual(figureProblems(figures, setups, 1), []);
  assert.equal(figures.hogs, 1);
  assert.ok((figures.load as { before: number }).before >= 0);
  assert.deepEqual(left, [], "its sandboxes are gone");
});

import assert from "node:assert/strict";
import { benchGeminiCli, GEMINI_SETUPS } from "./gemini_cli_bench.ts";
import { inPrivateTmp } from "./agent_bench.ts";

Deno.test("gemini-cli bench: one round of whole gemini -p sessions per setup, paired with the one without kiro-learn, nothing left behind", async () => {
  const { result: figures, left } = await inPrivateTmp(() =>
    benchGeminiCli({ runs: 1, warmup: 0, hogs: 0, quick: true })
  );
  const keys = GEMINI_SETUPS.map((s) => s.key);
  for (const key of keys) {
    assert.equal((figures[key] as { runs: number }).runs, 1, key);
  }
  assert.deepEqual(Object.keys(figures.overhead as object).sort(), keys.slice(1).sort());
  const collectors = figures.collectors as Record<string, { prompts: number }>;
  assert.deepEqual(
    Object.keys(collectors).sort(),
    GEMINI_SETUPS.filter((s) => s.hooks).map((s) => s.key).sort(),
  );
  assert.ok(Object.values(collectors).every((c) => c.prompts === 1));
  assert.deepEqual(left, [], "its sandboxes are gone");
});

import assert from "node:assert/strict";
import { benchCodex, CODEX_SETUPS, withoutMcpTable } from "./codex_bench.ts";
import { inPrivateTmp } from "./agent_bench.ts";

Deno.test("codex bench: one round of whole codex exec sessions per setup, paired with the one without kiro-learn, nothing left behind", async () => {
  const { result: figures, left } = await inPrivateTmp(() =>
    benchCodex({ runs: 1, warmup: 0, hogs: 1, quick: true })
  );
  const keys = CODEX_SETUPS.map((s) => s.key);
  for (const key of keys) {
    assert.equal((figures[key] as { runs: number }).runs, 1, key);
  }
  assert.deepEqual(Object.keys(figures.overhead as object).sort(), keys.slice(1).sort());
  // Every hooked setup's one session reached its collector as one prompt.
  const collectors = figures.collectors as Record<string, { prompts: number }>;
  assert.deepEqual(
    Object.keys(collectors).sort(),
    CODEX_SETUPS.filter((s) => s.hooks).map((s) => s.key).sort(),
  );
  assert.ok(Object.values(collectors).every((c) => c.prompts === 1));
  assert.equal(figures.hogs, 1);
  assert.deepEqual(left, [], "its sandboxes are gone");
});

Deno.test("codex bench: the MCP-less setup takes out exactly install's MCP table", () => {
  const text = [
    "# mine",
    'model = "o3"',
    "",
    "[mcp_servers.kiro-learn-memory]",
    'url = "http://127.0.0.1:1/mcp"',
    "",
    '[hooks.state."a"]',
    'trusted_hash = "sha256:1"',
    "",
  ].join("\n");
  assert.equal(
    withoutMcpTable(text),
    '# mine\nmodel = "o3"\n\n[hooks.state."a"]\ntrusted_hash = "sha256:1"\n',
  );
  assert.throws(() => withoutMcpTable("[tui]\n"), /install wrote no \[mcp_servers/);
});

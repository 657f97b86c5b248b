import assert from "node:assert/strict";
import { CODEX_SETUPS, withoutMcpTable } from "./codex_bench.ts";
import { benchInChild, figureProblems } from "./agent_bench.ts";

Deno.test("codex bench: one round of whole codex exec sessions per setup beside a busy process, paired with the one without kiro-learn, nothing left behind", async () => {
  const { figures, left } = await benchInChild(
    new URL("./codex_bench.ts", import.meta.url),
    ["--runs=1", "--warmup=0", "--quick", "--hogs=1"],
  );
  assert.deepEqual(figureProblems(figures, CODEX_SETUPS, 1), []);
  assert.equal(figures.hogs, 1);
  assert.match(String(figures.codex), /^\d+\.\d+\.\d+$/);
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

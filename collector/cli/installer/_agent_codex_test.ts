import assert from "node:assert/strict";
import {
  CODEX,
  codexConfigBlock,
  codexEventLabel,
  codexHookHash,
  codexTrust,
} from "./_agent_codex.ts";
import { checkAgent, parseToml, TEST_HOOKS } from "./_test_support.ts";
import { withTomlBlock } from "./_toml_block.ts";
import { isOurCommand } from "./shell.ts";

const MCP = { command: "sh", args: ["-c", 'exec "$HOME"/.kiro-learn/bin/mcp-server'] };
const ours = (command: unknown) => isOurCommand(command, TEST_HOOKS.known);

Deno.test("CODEX: owns its files alone; install, read back and strip agree; doctor stays in place", () => {
  checkAgent(CODEX, { files: [["codex-hooks", "/h/.codex/hooks.json"]] });
});

Deno.test("codexHookHash: the hash Codex CLI 0.171.0 trusted (seen running it: the hook ran)", () => {
  // Found by running the real client with this hook in ~/.codex/hooks.json and this hash as its
  // trusted_hash: the hook ran; with one character of the hash changed, Codex skipped it.
  assert.equal(
    codexHookHash("UserPromptSubmit", { command: "/tmp/cx/hook.sh", timeout: 10 }),
    "sha256:c9444cc0a085cc2a0fbaff3eff0ce39ee19b7b00c7f2d83e27f44f22cd438cf3",
  );
  assert.equal(codexEventLabel("UserPromptSubmit"), "user_prompt_submit");
  assert.equal(codexEventLabel("Stop"), "stop");
  assert.notEqual(
    codexHookHash("Stop", { command: "x", timeout: 10 }),
    codexHookHash("Stop", { command: "x", timeout: 11 }),
  );
});

Deno.test("codexTrust: our handlers only, keyed by their place among the user's groups", () => {
  const target = CODEX.target("codex-hooks", "/h/.codex/hooks.json", { hooks: TEST_HOOKS });
  const doc = target.install({
    hooks: { Stop: [{ hooks: [{ type: "command", command: "~/bin/notify", timeout: 5 }] }] },
  });
  const trust = codexTrust(doc, "/h/.codex/hooks.json", ours);
  assert.deepEqual(trust.map((t) => t.key), [
    "/h/.codex/hooks.json:stop:1:0",
    "/h/.codex/hooks.json:user_prompt_submit:0:0",
  ]);
  assert.equal(
    trust[0].hash,
    codexHookHash("Stop", { command: TEST_HOOKS.codex, timeout: 10 }),
  );
});

Deno.test("codexConfigBlock: our MCP server and trust as tables a TOML parser reads", async () => {
  const trust = [{ key: "/h/.codex/hooks.json:stop:0:0", hash: "sha256:ab" }];
  const original = 'model = "o3"\n';
  const block = codexConfigBlock(original, "/h/.codex/config.toml", { trust, mcp: MCP });
  assert.deepEqual(block.clashes, []);
  assert.deepEqual(block.warnings, []);
  const parsed = await parseToml(withTomlBlock(original, block.body, "c"));
  assert.deepEqual(parsed, {
    model: "o3",
    mcp_servers: { "kiro-learn-memory": MCP },
    hooks: { state: { "/h/.codex/hooks.json:stop:0:0": { trusted_hash: "sha256:ab" } } },
  });
});

Deno.test("codexConfigBlock: over HTTP, the collector's MCP route and the headers helper, run from / (the launcher takes the nearest folder that differs as the session's)", async () => {
  const helper = `exec "$HOME"'/.kiro-learn/bin/mcp-headers'`;
  const mcp = { url: "http://127.0.0.1:7777/mcp", headersHelper: helper };
  const block = codexConfigBlock("", "/h/.codex/config.toml", { trust: [], mcp });
  const parsed = await parseToml(withTomlBlock("", block.body, "c"));
  assert.deepEqual(parsed, {
    mcp_servers: {
      "kiro-learn-memory": {
        url: "http://127.0.0.1:7777/mcp",
        http_headers_helper: `cd / && ${helper}`,
      },
    },
  });
});

Deno.test("codexConfigBlock: Codex's own trust entry for our hook is kept; a stale one is said", () => {
  const trust = [{ key: "/h/.codex/hooks.json:stop:0:0", hash: "sha256:ab" }];
  const own = (hash: string) =>
    `[hooks.state."/h/.codex/hooks.json:stop:0:0"]\ntrusted_hash = "${hash}"\n`;
  const same = codexConfigBlock(own("sha256:ab"), "c", { trust, mcp: MCP });
  assert.doesNotMatch(same.body, /hooks\.state/);
  assert.deepEqual(same.warnings, []);
  const stale = codexConfigBlock(own("sha256:old"), "c", { trust, mcp: MCP });
  assert.doesNotMatch(stale.body, /hooks\.state/);
  assert.match(stale.warnings.join(), /another version of the hook.*\/hooks in Codex/);
  const server = codexConfigBlock('[mcp_servers.kiro-learn-memory]\ncommand = "mine"\n', "c", {
    trust,
    mcp: MCP,
  });
  assert.doesNotMatch(server.body, /mcp_servers/);
  assert.match(server.warnings.join(), /leaves it as it is/);
});

Deno.test("codexConfigBlock: inline tables and dotted keys over our names are clashes", () => {
  const samples = new URL("./testdata/codex/", import.meta.url).pathname;
  const trust = [{ key: "/home/ada/.codex/hooks.json:stop:0:0", hash: "sha256:ab" }];
  const inline = codexConfigBlock(
    Deno.readTextFileSync(`${samples}inline_hooks_state.toml`),
    "c",
    { trust, mcp: MCP },
  );
  assert.deepEqual(inline.clashes, [
    'hooks.state (kiro-learn adds [hooks.state."/home/ada/.codex/hooks.json:stop:0:0"])',
  ]);
  const dotted = codexConfigBlock(Deno.readTextFileSync(`${samples}dotted_mcp.toml`), "c", {
    trust,
    mcp: MCP,
  });
  assert.deepEqual(dotted.clashes, [
    "mcp_servers.kiro-learn-memory.command (kiro-learn adds [mcp_servers.kiro-learn-memory])",
  ]);
  // The typical sample has neither.
  const typical = codexConfigBlock(Deno.readTextFileSync(`${samples}typical.toml`), "c", {
    trust,
    mcp: MCP,
  });
  assert.deepEqual(typical.clashes, []);
});

import assert from "node:assert/strict";
import { MCP_ENV_VARS, mcpCommand, REPO_ROOT } from "./command.ts";

Deno.test("mcpCommand runs main.ts under the repo's config with narrow permissions", () => {
  const argv = mcpCommand({ host: "127.0.0.1", port: 21100, repoRoot: "/opt/kiro-learn" });
  assert.deepEqual(argv, [
    Deno.execPath(),
    "run",
    "--no-prompt",
    "--allow-net=127.0.0.1:21100",
    "--allow-read",
    `--allow-env=${MCP_ENV_VARS.join(",")}`,
    "--config",
    "/opt/kiro-learn/deno.json",
    "/opt/kiro-learn/mcp/main.ts",
  ]);
  assert.ok(!argv.some((a) => a === "-A" || a.startsWith("--allow-all")));
  assert.ok(!argv.some((a) => /^--allow-(write|run|ffi|sys)/.test(a)));
});

Deno.test("mcpCommand brackets IPv6 hosts and honours execPath", () => {
  const argv = mcpCommand({ host: "::1", port: 9000, execPath: "/usr/bin/deno" });
  assert.equal(argv[0], "/usr/bin/deno");
  assert.ok(argv.includes("--allow-net=[::1]:9000"));
  assert.equal(argv.at(-1), `${REPO_ROOT}/mcp/main.ts`);
});

Deno.test("MCP_ENV_VARS lists exactly what the server reads", () => {
  assert.deepEqual([...MCP_ENV_VARS].sort(), [
    "CLAUDE_PROJECT_DIR",
    "HOME",
    "KIRO_LEARN_HOME",
    "KIRO_LEARN_HOST",
    "KIRO_LEARN_LOG_LEVEL",
    "KIRO_LEARN_PORT",
    "KIRO_LEARN_PROJECT_DIR",
    "LOGNAME",
    "USER",
    "USERNAME",
    "USERPROFILE",
  ]);
});

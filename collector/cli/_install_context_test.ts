import assert from "node:assert/strict";
import { loadSettings } from "@kiro-learn/core/settings";
import { installCommands } from "./_install_context.ts";

Deno.test("installCommands: Gemini CLI's and Copilot CLI's stdio entry is the sh relay, the Deno server with --mcp stdio", () => {
  const settings = loadSettings({ env: { KIRO_LEARN_HOME: "/home/ada/.kiro-learn" } });
  const commands = installCommands(settings, { home: "/home/ada" });
  assert.deepEqual(commands.mcpRelay?.(), [
    "sh",
    "-c",
    'exec "$HOME"/.kiro-learn/bin/mcp-relay',
  ]);
  assert.deepEqual(commands.mcp(), ["sh", "-c", 'exec "$HOME"/.kiro-learn/bin/mcp-server']);
  const stdio = installCommands(settings, { home: "/home/ada", mcp: "stdio" });
  assert.equal(stdio.mcpRelay?.(), null);
  assert.equal(stdio.mcpHttp?.(), null);
});

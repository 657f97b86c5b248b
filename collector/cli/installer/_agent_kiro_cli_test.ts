import { KIRO_CLI } from "./_agent_kiro_cli.ts";
import { checkAgent } from "./_test_support.ts";

Deno.test("KIRO_CLI: owns its files alone; install, read back and strip agree; doctor stays in place", () => {
  checkAgent(KIRO_CLI, {
    files: [
      ["kiro-hooks", "/p/.kiro/hooks/kiro-learn.json"],
      ["kiro-chat-agent", "/h/.kiro/agents/kiro-learn.json"],
      ["kiro-mcp", "/p/.kiro/settings/mcp.json"],
      ["kiro-llm-agent", "/h/.kiro/agents/kiro-learn-compressor.json"],
    ],
  });
});

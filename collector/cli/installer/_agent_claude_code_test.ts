import { CLAUDE_CODE } from "./_agent_claude_code.ts";
import { checkAgent } from "./_test_support.ts";

Deno.test("CLAUDE_CODE: owns its files alone; install, read back and strip agree; doctor stays in place", () => {
  checkAgent(CLAUDE_CODE, {
    files: [["claude-settings-user", "/h/.claude/settings.json"], [
      "claude-mcp-project",
      "/p/.mcp.json",
    ]],
  });
});

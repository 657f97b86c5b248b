import { KIRO_IDE } from "./_agent_kiro_ide.ts";
import { checkAgent } from "./_test_support.ts";

Deno.test("KIRO_IDE: owns its files alone; install, read back and strip agree; doctor stays in place", () => {
  checkAgent(KIRO_IDE, {
    files: [["kiro-ide-hook", "/p/.kiro/hooks/kiro-learn-prompt.kiro.hook"]],
  });
});

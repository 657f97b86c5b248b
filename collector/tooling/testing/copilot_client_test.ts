import assert from "node:assert/strict";
import { COPILOT_CLI_VERSION, requireCopilotCli } from "./copilot_client.ts";

Deno.test("requireCopilotCli: the pinned client is installed, its native program from npm, and runs offline", async () => {
  const binary = requireCopilotCli();
  // A HOME of its own: the client unpacks itself into ~/.cache/copilot on its first run.
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-copilot-version-" });
  try {
    const out = await new Deno.Command(binary, {
      args: ["--version"],
      env: { HOME: home, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", COPILOT_OFFLINE: "true" },
      clearEnv: true,
      stdin: "null",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.match(
      new TextDecoder().decode(out.stdout),
      new RegExp(`^GitHub Copilot CLI ${COPILOT_CLI_VERSION.replaceAll(".", "\\.")}\\.`),
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

import assert from "node:assert/strict";
import { CLI_ENTRY, denoEnvAssignments, WORKSPACE_CONFIG } from "./layout.ts";
import { CLI_RUN_FLAGS, cliArgv, cliLauncherScript } from "./cli.ts";

Deno.test("CLI_RUN_FLAGS are exactly the permissions of `deno task kiro-learn`", async () => {
  const config = JSON.parse(await Deno.readTextFile(WORKSPACE_CONFIG));
  const task: string = config.tasks["kiro-learn"];
  assert.equal(
    task,
    `${denoEnvAssignments()} deno run ${CLI_RUN_FLAGS.join(" ")} collector/main.ts`,
  );
});

Deno.test("the launcher runs the CLI offline with its permissions and passes every argument on", () => {
  assert.deepEqual(cliArgv({ denoPath: "/opt/deno" }).slice(0, 4), [
    "/opt/deno",
    "run",
    "--no-remote",
    "--cached-only",
  ]);
  assert.equal(cliArgv().at(-1), CLI_ENTRY);
  const text = cliLauncherScript({ denoPath: "/opt/my deno/deno" });
  assert.equal(text.split("\n")[0], "#!/bin/sh");
  assert.match(text, /exec '\/opt\/my deno\/deno' run /);
  assert.ok(text.includes(`--config ${WORKSPACE_CONFIG} ${CLI_ENTRY} "$@"`), text);
});

// DENO_ENV: every `deno` kiro-learn starts runs without Deno's update check, so an empty
// DENO_DIR (a new machine, a sandboxed agent) sends nothing off the machine.
import assert from "node:assert/strict";
import { loadSettings } from "../settings/mod.ts";
import { launchersOutside, LINGER_PROBE, outsideConnections } from "../testing/mod.ts";
import { DENO_ENV, denoEnvAssignments, REPO_ROOT } from "./mod.ts";

Deno.test("every deno.json task runs deno with DENO_ENV", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/deno.json`));
  const tasks = Object.entries(config.tasks as Record<string, string>);
  assert.ok(tasks.length > 0);
  for (const [name, line] of tasks) {
    // Every command of the task (`a && b`) that runs deno sets the update check off first.
    for (const command of line.split(/&&|\|\||;/).map((c) => c.trim())) {
      if (!/(^|\s)deno\s/.test(command)) continue;
      assert.ok(
        command.includes("DENO_NO_UPDATE_CHECK=1"),
        `task ${name}: \`${command}\` runs deno with the update check on`,
      );
      const [, sub] = command.match(/deno (\w+)/)!;
      if (["run", "test", "check"].includes(sub)) {
        assert.ok(command.startsWith(denoEnvAssignments()), `task ${name}: ${command}`);
      }
    }
  }
});

Deno.test("DENO_ENV turns off the update check and prompts", () => {
  assert.deepEqual(DENO_ENV, { DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" });
});

Deno.test({
  name: "no launcher or starter connects outside with an empty DENO_DIR (Deno's update check)",
  // Each run lingers 4 s: the runs go together.
  sanitizeResources: false,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-launchers-" });
  try {
    const settings = loadSettings({ env: { KIRO_LEARN_HOME: `${dir}/data` } });
    const control = outsideConnections([Deno.execPath(), "run", LINGER_PROBE]);
    const done = await launchersOutside(settings, dir);
    const plain = await control;
    assert.ok(
      plain.requests.length > 0,
      `a plain deno run with an empty DENO_DIR connected nowhere: the probe proves nothing\n${plain.output}`,
    );
    for (const run of done) {
      assert.match(run.output, /lingered/, `${run.name} did not run the probe:\n${run.output}`);
      assert.deepEqual(run.requests, [], `${run.name} connected outside`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

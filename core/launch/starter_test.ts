import assert from "node:assert/strict";
import { CLI_ENTRY, WORKSPACE_CONFIG } from "./layout.ts";
import { starterScript, writeStarter } from "./starter.ts";

Deno.test("the starter pins the data dir and runs `kiro-learn start`, ignoring any argument", () => {
  const text = starterScript({ dataDir: "/home/o'neil/.kiro-learn", denoPath: "/opt/deno" });
  const lines = text.split("\n");
  assert.equal(lines[0], "#!/bin/sh");
  assert.ok(lines.includes(`KIRO_LEARN_HOME='/home/o'\\''neil/.kiro-learn'`), text);
  const exec = lines.find((l) => l.startsWith("exec "));
  assert.ok(exec);
  assert.ok(exec.startsWith("exec /opt/deno run --no-remote --cached-only --no-prompt"), exec);
  assert.ok(exec.includes(`${CLI_ENTRY} start >/dev/null 2>&1 </dev/null`), exec);
  assert.ok(exec.includes(`--config ${WORKSPACE_CONFIG}`), exec);
  // No "$@" or "$1": whoever runs it can only start the collector.
  assert.doesNotMatch(text, /\$[@*0-9]/);
});

Deno.test("writeStarter: an executable 0700 file in a 0700 folder, and running it starts nothing on bad input", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/data/bin/start-collector`;
    writeStarter(path, { dataDir: `${dir}/data`, denoPath: "/bin/false" });
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o700);
    assert.equal(Deno.statSync(`${dir}/data/bin`).mode! & 0o777, 0o700);
    // It is a real script: with `false` standing in for deno it runs and reports that exit.
    const { code } = await new Deno.Command(path, { args: ["--evil"] }).output();
    assert.equal(code, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

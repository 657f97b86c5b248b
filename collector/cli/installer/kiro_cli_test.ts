import assert from "node:assert/strict";
import { join } from "node:path";
import {
  chooseKiroFormat,
  parseKiroCliVersion,
  probeKiroCliVersion,
  seedKiroAgent,
} from "./kiro_cli.ts";

async function fakeProgram(dir: string, name: string, script: string): Promise<string> {
  const path = join(dir, name);
  await Deno.writeTextFile(path, `#!/bin/sh\n${script}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

Deno.test("kiro-cli version strings parse", () => {
  assert.deepEqual(parseKiroCliVersion("kiro-cli 3.1.0"), { major: 3, minor: 1, patch: 0 });
  assert.deepEqual(parseKiroCliVersion("kiro-cli 2.0.1-beta.2\n"), {
    major: 2,
    minor: 0,
    patch: 1,
  });
  assert.deepEqual(parseKiroCliVersion("v10.4"), { major: 10, minor: 4, patch: 0 });
  assert.equal(parseKiroCliVersion("kiro-cli dev build"), null);
});

Deno.test("the format follows the version unless the user chose one", () => {
  assert.equal(chooseKiroFormat("auto", "kiro-cli 3.0.0").format, "v3");
  assert.equal(chooseKiroFormat("auto", "kiro-cli 2.9.9").format, "v2");
  assert.equal(chooseKiroFormat("auto", null).format, "v3");
  assert.equal(chooseKiroFormat("auto", "nightly").format, "v3");
  assert.equal(chooseKiroFormat("v2", "kiro-cli 3.1.0").format, "v2");
  assert.equal(chooseKiroFormat("v3", "kiro-cli 1.0.0").format, "v3");
  assert.match(chooseKiroFormat("auto", "kiro-cli 2.1.0").reason, /2\.1\.0/);
});

Deno.test("probing runs the program and returns null when it is missing or fails", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ok = await fakeProgram(dir, "kiro-ok", 'echo "kiro-cli 3.2.1"');
    const bad = await fakeProgram(dir, "kiro-bad", "exit 3");
    assert.equal(await probeKiroCliVersion({ command: ok }), "kiro-cli 3.2.1");
    assert.equal(await probeKiroCliVersion({ command: bad }), null);
    assert.equal(await probeKiroCliVersion({ command: join(dir, "missing") }), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("seeding reads the agent kiro-cli wrote into the scratch dir, with EDITOR=true", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Writes the agent where --directory points, and records its argv and EDITOR.
    const fake = await fakeProgram(
      dir,
      "kiro-cli",
      `printf '%s\\n' "$@" > ${dir}/argv; echo "$EDITOR" > ${dir}/editor
while [ $# -gt 0 ]; do if [ "$1" = --directory ]; then out="$2"; fi; shift; done
echo '{"name":"kiro-learn","tools":["*"],"prompt":"Be Kiro."}' > "$out/kiro-learn.json"`,
    );
    const seeded = await seedKiroAgent({ command: fake });
    assert.deepEqual(seeded.agent, { name: "kiro-learn", tools: ["*"], prompt: "Be Kiro." });
    const argv = (await Deno.readTextFile(join(dir, "argv"))).trim().split("\n");
    assert.deepEqual(argv.slice(0, 5), [
      "agent",
      "create",
      "--from",
      "kiro_default",
      "--directory",
    ]);
    assert.equal(argv[6], "kiro-learn");
    assert.equal((await Deno.readTextFile(join(dir, "editor"))).trim(), "true");
    // The scratch dir is gone afterwards.
    assert.throws(() => Deno.statSync(argv[5]), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("seeding failures come back as a warning, never an exception", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const failing = await fakeProgram(dir, "fails", "echo 'no such template' >&2; exit 1");
    const silent = await fakeProgram(dir, "silent", "exit 0");
    const garbage = await fakeProgram(
      dir,
      "garbage",
      `while [ $# -gt 0 ]; do if [ "$1" = --directory ]; then out="$2"; fi; shift; done
echo '[1,2]' > "$out/kiro-learn.json"`,
    );
    const a = await seedKiroAgent({ command: failing });
    assert.equal(a.agent, null);
    assert.match(a.warning!, /no such template/);
    assert.match((await seedKiroAgent({ command: silent })).warning!, /no kiro-learn\.json/);
    assert.match((await seedKiroAgent({ command: garbage })).warning!, /non-object/);
    assert.equal((await seedKiroAgent({ command: join(dir, "missing") })).agent, null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

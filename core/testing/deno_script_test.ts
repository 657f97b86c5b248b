import assert from "node:assert/strict";
import { runDenoScript } from "./deno_script.ts";

Deno.test("runDenoScript: arguments, environment and folder reach the script; output and code come back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = `${dir}/echo.ts`;
    await Deno.writeTextFile(
      script,
      `console.log(Deno.args.join(" "), Deno.env.get("PROBE"), Deno.cwd());
      console.error("to stderr");
      Deno.exit(3);`,
    );
    const run = await runDenoScript(script, { args: ["a", "b"], cwd: dir, env: { PROBE: "p" } });
    assert.equal(run.code, 3);
    assert.equal(run.stdout, `a b p ${await Deno.realPath(dir)}\n`);
    assert.equal(run.stderr, "to stderr\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runDenoScript: flags go to Deno, before the script, not to the script", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = `${dir}/where.ts`;
    await Deno.writeTextFile(script, `console.log(location.href, Deno.args.length);`);
    const run = await runDenoScript(script, {
      flags: ["--location=https://example.test/here"],
      cwd: dir,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "https://example.test/here 0\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

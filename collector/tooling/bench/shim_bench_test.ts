import assert from "node:assert/strict";

Deno.test("the shim benchmark runs end to end with --quick", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("./shim_bench.ts", import.meta.url).pathname,
        "--quick",
        `--out=${dir}/shims.json`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.match(stdout, /shim: tool-use hook\s+median/);
    assert.match(stdout, /shim: prompt hook, retrieval at 1k records\s+median/);
    const figures = JSON.parse(await Deno.readTextFile(`${dir}/shims.json`));
    assert.equal(figures.quick, true);
    assert.equal(figures.tool_use_hook.runs, 8);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

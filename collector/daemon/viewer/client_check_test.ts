// Type-checks the browser scripts (plain JS with JSDoc types) against the DOM library. They are
// checked in a program of their own: the workspace's `deno check` runs without the DOM library,
// and pulling it in there would change the globals every other module is checked against.
import assert from "node:assert/strict";

const STATIC = new URL("./static/", import.meta.url);

Deno.test("the browser scripts type-check against the DOM library", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-client-check-" });
  try {
    await Deno.writeTextFile(
      `${dir}/deno.json`,
      JSON.stringify({
        compilerOptions: { checkJs: true, lib: ["dom", "dom.iterable", "esnext"] },
      }),
    );
    const files = ["app.js", "theme.js"];
    for (const name of files) {
      const source = await Deno.readTextFile(new URL(name, STATIC));
      // The copy becomes a module so the two scripts do not share a global scope.
      await Deno.writeTextFile(`${dir}/${name}`, `// @ts-check\n${source}\nexport {};\n`);
    }
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--no-lock", "--config", `${dir}/deno.json`, ...files],
      cwd: dir,
      stdout: "null",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

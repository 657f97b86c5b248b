// Type-checks the browser modules (plain JS with JSDoc types) against the DOM library. They are
// checked in a program of their own: the workspace's `deno check` runs without the DOM library,
// and pulling it in there would change the globals every other module is checked against. The
// pages type their labels and the router by the lists in the generated `enums.js`, so a page that
// no longer covers the collector's enums fails here, as does an import of a missing module.
import assert from "node:assert/strict";

const STATIC = new URL("./static/", import.meta.url);

/** Every `.js` file under `static/`, as paths relative to it. */
async function scripts(dir = "", out: string[] = []): Promise<string[]> {
  for await (const entry of Deno.readDir(new URL(dir || ".", STATIC))) {
    const path = dir + entry.name;
    if (entry.isDirectory) await scripts(`${path}/`, out);
    else if (path.endsWith(".js")) out.push(path);
  }
  return out.sort();
}

/** The relative specifiers a module imports, type-only `import("…")` in JSDoc included. */
function importsOf(source: string): string[] {
  const specs = [
    ...source.matchAll(/^\s*(?:import|export)\s[^"']*?from\s+"(\.{1,2}\/[^"]+)"/gm),
    ...source.matchAll(/^\s*import\s+"(\.{1,2}\/[^"]+)"/gm),
    ...source.matchAll(/import\("(\.{1,2}\/[^"]+)"\)/g),
  ];
  return specs.map((m) => m[1]);
}

Deno.test("the browser modules type-check against the DOM library", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-client-check-" });
  try {
    await Deno.writeTextFile(
      `${dir}/deno.json`,
      JSON.stringify({
        compilerOptions: { checkJs: true, lib: ["dom", "dom.iterable", "esnext"] },
      }),
    );
    const files = await scripts();
    for (const name of ["js/app.js", "js/theme.js", "js/enums.js"]) {
      assert.ok(files.includes(name), `${name} missing from ${files}`);
    }
    for (const name of files) {
      const source = await Deno.readTextFile(new URL(name, STATIC));
      await Deno.mkdir(`${dir}/${name.slice(0, name.lastIndexOf("/") + 1)}`, { recursive: true });
      // `export {}` keeps the classic theme.js from sharing a global scope with the modules.
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

Deno.test("every browser module is reached from the entry, and every import resolves", async () => {
  const files = new Set(await scripts());
  const reached = new Set<string>();
  // Two entries: the viewer's pages load app.js, the login page login.js.
  const queue = ["js/app.js", "js/login.js"];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (reached.has(name)) continue;
    reached.add(name);
    for (const spec of importsOf(await Deno.readTextFile(new URL(name, STATIC)))) {
      const target = new URL(spec, new URL(name, "file:///")).pathname.slice(1);
      assert.ok(files.has(target), `${name} imports ${spec}, which is not in static/`);
      queue.push(target);
    }
  }
  // theme.js is the classic script the page shell loads by itself.
  const unreached = [...files].filter((f) => !reached.has(f) && f !== "js/theme.js");
  assert.deepEqual(unreached, [], "modules nothing imports");
});

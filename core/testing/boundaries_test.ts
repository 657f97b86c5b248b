// The import rules of DESIGN §2, checked over the real module graphs (`deno info --json`).
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

interface Graph {
  files: string[];
  npm: string[];
  node: string[];
}

async function graph(entry: string): Promise<Graph> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL(entry, ROOT).pathname],
    cwd: ROOT.pathname,
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0, `deno info failed for ${entry}`);
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string }[];
  };
  const specs = info.modules.map((m) => m.specifier);
  return {
    files: specs.filter((s) => s.startsWith("file://")).map((s) => s.slice(ROOT.href.length)),
    npm: specs.filter((s) => s.startsWith("npm:")).map((s) => s.replace(/^npm:\/?/, "")),
    node: specs.filter((s) => s.startsWith("node:")),
  };
}

function member(file: string): string {
  return file.split("/")[0];
}

async function entries(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL(dir, ROOT))) {
    if (e.isFile && e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) {
      out.push(`${dir}/${e.name}`);
    }
  }
  return out.sort();
}

Deno.test("core imports no other member", async () => {
  const g = await graph("core/mod.ts");
  assert.deepEqual([...new Set(g.files.map(member))], ["core"]);
});

Deno.test("agents import nothing at all", async () => {
  const g = await graph("agents/mod.ts");
  assert.deepEqual([...new Set(g.files.map(member))], ["agents"]);
  assert.deepEqual(g.npm, []);
});

Deno.test("shims import only the small pure parts of core: no storage, Hono, embedder", async () => {
  const allowedCore = /^core\/(schemas|project|settings)\/|^core\/(ids|version)\.ts$/;
  for (const entry of ["shims/kiro_cli.ts", "shims/kiro_ide.ts", "shims/claude_code.ts"]) {
    const g = await graph(entry);
    for (const file of g.files) {
      assert.ok(
        member(file) === "shims" || allowedCore.test(file),
        `${entry} pulls in ${file}`,
      );
    }
    for (const pkg of g.npm) assert.match(pkg, /^(zod|ulid)@/, `${entry} pulls in npm ${pkg}`);
    assert.ok(!g.node.includes("node:sqlite"), `${entry} pulls in node:sqlite`);
  }
});

Deno.test("the MCP server never imports the collector", async () => {
  const g = await graph("mcp/main.ts");
  for (const file of g.files) assert.ok(["mcp", "core"].includes(member(file)), file);
});

Deno.test("the collector imports only core (and agents, which are data)", async () => {
  for (const entry of ["collector/main.ts", "collector/daemon.ts"]) {
    const g = await graph(entry);
    for (const file of g.files) {
      assert.ok(["collector", "core", "agents"].includes(member(file)), `${entry} → ${file}`);
    }
  }
});

Deno.test("no non-test module reaches into another member's private (_) files", async () => {
  for (const dir of ["core", "collector", "shims", "mcp", "agents"]) {
    for (const entry of await entries(dir)) {
      const g = await graph(entry);
      for (const file of g.files) {
        const name = file.split("/").at(-1)!;
        if (!name.startsWith("_")) continue;
        const folder = file.slice(0, file.lastIndexOf("/"));
        assert.ok(entry.startsWith(folder + "/"), `${entry} imports private ${file}`);
      }
    }
  }
});

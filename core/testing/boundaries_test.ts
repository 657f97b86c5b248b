// What a hook firing really loads, over the real module graphs (`deno info --json`). The file-by-file
// layout rules (members, folders, mod.ts, private files, tests beside) are in workspace_rules_test.ts.
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

interface Graph {
  files: string[];
  npm: string[];
  node: string[];
}

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string } }[];
}

async function info(
  entry: string,
): Promise<{ modules: InfoModule[]; redirects: Record<string, string> }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL(entry, ROOT).pathname],
    cwd: ROOT.pathname,
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0, `deno info failed for ${entry}`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

function classify(specs: string[]): Graph {
  return {
    files: specs.filter((s) => s.startsWith("file://")).map((s) => s.slice(ROOT.href.length)),
    npm: specs.filter((s) => s.startsWith("npm:")).map((s) => s.replace(/^npm:\/?/, "")),
    node: specs.filter((s) => s.startsWith("node:")),
  };
}

/** Every module of an entry's graph, type-only imports included. */
async function graph(entry: string): Promise<Graph> {
  return classify((await info(entry)).modules.map((m) => m.specifier));
}

/**
 * The modules an entry loads when it runs: its graph followed along code imports only
 * (`import type` edges are erased at run time and `deno run` does not load them).
 */
async function runtimeGraph(entry: string): Promise<Graph> {
  const { modules, redirects } = await info(entry);
  const byUrl = new Map(modules.map((m) => [m.specifier, m]));
  const start = new URL(entry, ROOT).href;
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    let url = queue.pop()!;
    url = redirects[url] ?? url;
    if (seen.has(url)) continue;
    seen.add(url);
    for (const dep of byUrl.get(url)?.dependencies ?? []) {
      if (dep.code !== undefined) queue.push(dep.code.specifier);
    }
  }
  return classify([...seen]);
}

function member(file: string): string {
  return file.split("/")[0];
}

const SHIM_ENTRIES = [
  "shims/kiro_cli.ts",
  "shims/kiro_ide.ts",
  "shims/claude_code.ts",
  "shims/codex.ts",
  "shims/gemini_cli.ts",
];

Deno.test("shims import only the small pure parts of core: no storage, Hono, embedder", async () => {
  // Run time: project identity, settings, launch (env list), spool, limits, the HTTP contract's
  // wire part, ids, version, path, the error-line picker, the hook plans shared with the collector.
  const allowedCore =
    /^core\/(project|settings|launch|spool|privacy|fs|hooks)\/[a-z_0-9]+\.ts$|^core\/schemas\/limits\.ts$|^core\/api\/wire\.ts$|^core\/privacy\/data\/secret_rules\.json$|^core\/(ids|version|path|env|error_line|terminal)\.ts$/;
  for (const entry of SHIM_ENTRIES) {
    const g = await runtimeGraph(entry);
    for (const file of g.files) {
      assert.ok(member(file) === "shims" || allowedCore.test(file), `${entry} loads ${file}`);
      // Tools around the shims are never loaded by a hook firing.
      assert.doesNotMatch(
        file,
        /^shims\/(replay|compile|testing|mod)\.ts$/,
        `${entry} loads ${file}`,
      );
    }
    // Types may come from the zod schemas (`import type`), never their code.
    for (const file of (await graph(entry)).files) {
      assert.ok(
        member(file) === "shims" || allowedCore.test(file) || file.startsWith("core/schemas/"),
        `${entry} pulls in ${file}`,
      );
    }
  }
});

Deno.test("a shim loads no npm: and no node: module at run time (start-up cost)", async () => {
  for (const entry of SHIM_ENTRIES) {
    const g = await runtimeGraph(entry);
    assert.deepEqual(g.npm, [], `${entry} loads npm packages`);
    assert.deepEqual(g.node, [], `${entry} loads node: modules`);
    // The graph walk really followed the entry's imports.
    assert.ok(g.files.includes("shims/transport.ts") && g.files.includes("core/ids.ts"), entry);
  }
});

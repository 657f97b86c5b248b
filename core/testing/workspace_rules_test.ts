// The layout rules, run on every file of the real tree, and each rule shown to fail when broken.
import assert from "node:assert/strict";
import {
  checkForbiddenFolders,
  checkLayers,
  checkMemberImports,
  checkPrivate,
  checkPublicOrPrivate,
  checkTestsBeside,
  checkTestSupport,
  checkThroughMod,
  checkWorkspace,
  type ExportMap,
  parseImports,
  scanWorkspace,
  type SourceFile,
  WORKSPACE_RULES,
} from "./workspace_rules.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

function file(path: string, imports: string[] = [], reexports: string[] = []): SourceFile {
  return { path, imports, reexports, exported: [] };
}

Deno.test("the real tree breaks no rule", async () => {
  const files = await scanWorkspace(ROOT);
  // The scan really read the tree: every member, and imports resolved.
  for (const member of ["core", "collector", "shims", "mcp", "agents"]) {
    assert.ok(files.some((f) => f.path.startsWith(`${member}/`)), member);
  }
  const cliMod = files.find((f) => f.path === "collector/cli/mod.ts");
  assert.ok(cliMod?.imports.includes("collector/cli/serve.ts"));
  const violations = checkWorkspace(files);
  assert.deepEqual(
    violations.map((v) => `${v.rule}: ${v.file}: ${v.message}`),
    [],
  );
});

Deno.test("parseImports: static, type, re-export, dynamic and bare imports; comments ignored", () => {
  const exports: ExportMap = new Map([["@kiro-learn/core/storage", "core/storage/mod.ts"]]);
  const source = [
    'import { a } from "./a.ts";',
    'import type { B } from "../b/mod.ts";',
    'export { c } from "./c.ts";',
    'export * from "./d.ts";',
    'const e = await import("./e.ts");',
    'import { openSqliteStorage } from "@kiro-learn/core/storage";',
    'import assert from "node:assert/strict";',
    '// import { x } from "./commented.ts";',
    '/** import { y } from "./doc.ts"; */',
  ].join("\n");
  const parsed = parseImports("collector/cli/x.ts", source, { exports });
  assert.deepEqual(parsed.imports.sort(), [
    "collector/b/mod.ts",
    "collector/cli/a.ts",
    "collector/cli/c.ts",
    "collector/cli/d.ts",
    "collector/cli/e.ts",
    "core/storage/mod.ts",
  ]);
  assert.deepEqual(parsed.reexports.sort(), ["collector/cli/c.ts", "collector/cli/d.ts"]);
  assert.deepEqual(parsed.exported, ["core/storage/mod.ts"]);
});

Deno.test("member-imports fails when core imports the collector", () => {
  const files = [file("core/storage/sqlite.ts", ["collector/daemon/server/mod.ts"])];
  assert.equal(checkMemberImports(files, WORKSPACE_RULES).length, 1);
  // …and a test may use the collector's test harness, but production code may not.
  const harness = ["collector/tooling/testing/mod.ts"];
  assert.equal(checkMemberImports([file("shims/x_test.ts", harness)], WORKSPACE_RULES).length, 0);
  assert.equal(checkMemberImports([file("shims/x.ts", harness)], WORKSPACE_RULES).length, 1);
});

Deno.test("forbidden-folder fails when the daemon imports the CLI or the tooling", () => {
  const files = [
    file("collector/daemon/start.ts", ["collector/cli/mod.ts"]),
    file("collector/daemon/server/app.ts", ["collector/tooling/bench/mod.ts"]),
  ];
  assert.equal(checkForbiddenFolders(files, WORKSPACE_RULES).length, 2);
});

Deno.test("layers fails when the viewer imports the server", () => {
  const files = [file("collector/daemon/viewer/x.ts", ["collector/daemon/server/mod.ts"])];
  assert.equal(checkLayers(files, WORKSPACE_RULES).length, 1);
  const ok = [file("collector/daemon/server/x.ts", ["collector/daemon/viewer/mod.ts"])];
  assert.equal(checkLayers(ok, WORKSPACE_RULES).length, 0);
});

Deno.test("test-support fails when production code imports test or bench code", () => {
  const files = [
    file("collector/daemon/start.ts", ["collector/tooling/testing/mod.ts"]),
    file("mcp/server.ts", ["mcp/server_test.ts"]),
    file("core/storage/sqlite.ts", ["core/testing/mod.ts"]),
  ];
  assert.equal(checkTestSupport(files, WORKSPACE_RULES).length, 3);
});

Deno.test("through-mod fails on a direct import of another folder's file", () => {
  const files = [
    file("collector/cli/start.ts", ["collector/daemon/permissions/permissions.ts"]),
    file("collector/cli/stop.ts", ["collector/daemon/permissions/mod.ts"]),
    file("collector/cli/mod.ts", ["collector/cli/start.ts"]),
  ];
  assert.deepEqual(checkThroughMod(files).map((v) => v.file), ["collector/cli/start.ts"]);
  // A member's exported entry (a bare specifier) is public by definition.
  const bare = { ...file("shims/run.ts", ["core/ids.ts"]), exported: ["core/ids.ts"] };
  assert.equal(checkThroughMod([bare]).length, 0);
});

Deno.test("private fails when a _ file is imported from outside its folder", () => {
  const files = [
    file("collector/cli/install.ts", ["collector/cli/installer/_plan.ts"]),
    file("collector/cli/installer/mod.ts", ["collector/cli/installer/_plan.ts"]),
  ];
  assert.deepEqual(checkPrivate(files).map((v) => v.file), ["collector/cli/install.ts"]);
});

Deno.test("public-or-private fails on a module its mod.ts does not export", () => {
  const files = [
    file("collector/cli/mod.ts", [], ["collector/cli/start.ts"]),
    file("collector/cli/start.ts"),
    file("collector/cli/helper.ts"),
    file("collector/cli/_private.ts"),
    file("collector/cli/start_test.ts"),
  ];
  assert.deepEqual(checkPublicOrPrivate(files, WORKSPACE_RULES).map((v) => v.file), [
    "collector/cli/helper.ts",
  ]);
});

Deno.test("test-beside fails on a module without a test and without a stated reason", () => {
  const files = [
    file("core/a.ts"),
    file("core/a_test.ts"),
    file("core/_b.ts"),
    file("core/_b_test.ts"),
    file("core/c.ts"),
  ];
  assert.deepEqual(checkTestsBeside(files, WORKSPACE_RULES).map((v) => v.file), ["core/c.ts"]);
  const excused = { ...WORKSPACE_RULES, untested: { "core/c.ts": "types only" } };
  assert.equal(checkTestsBeside(files, excused).length, 0);
});

/**
 * The workspace's import and layout rules, checked over every source file (not only the entry
 * points): which member may import which, which folder of the collector may import which, that
 * cross-folder imports go through `mod.ts`, that `_` files stay private to their folder, that a
 * folder's non-private files are its public API, and that every module has a test beside it.
 *
 * The rules are plain functions over a list of {@linkcode SourceFile}s, so a test can run them
 * on the real tree and, with a hand-made list, prove that each one fails when it is broken.
 *
 * @module
 */
import rulesData from "./data/workspace_rules.json" with { type: "json" };

/** One source file and the workspace files it imports. */
export interface SourceFile {
  /** Path from the repository root, `/`-separated (`collector/cli/mod.ts`). */
  path: string;
  /** Workspace files it imports (static, re-exports and dynamic), as repository paths. */
  imports: string[];
  /** What `mod.ts` re-exports (`export … from "./x.ts"`), as repository paths. */
  reexports: string[];
  /** The imports written as a workspace member's exported name (`@kiro-learn/core/ids`). */
  exported: string[];
  /** True when the file is one of its member's declared entries (`deno.json` `exports`). */
  entry?: boolean;
}

/** A broken rule: which rule, where, and what to do about it. */
export interface Violation {
  /** The rule's name (`member-imports`, `through-mod`, …). */
  rule: string;
  /** The file that breaks it. */
  file: string;
  /** What is wrong and how to fix it. */
  message: string;
}

/** The rules' data: who may import whom, and the modules that need no test of their own. */
export interface WorkspaceRules {
  /** Member → members its production files may import. */
  memberImports: Record<string, string[]>;
  /** Folder prefix → members its files may import as well (tooling, tests' harness). */
  extraMemberImports: Record<string, string[]>;
  /** Members every test file may import (the test harness). */
  testMemberImports: Record<string, string[]>;
  /** Folder prefix → folder prefixes its production files must never import. */
  forbiddenFolders: Record<string, string[]>;
  /** Folder → sibling folders it may import (a layer table; folders not listed are free). */
  layers: Record<string, Record<string, string[]>>;
  /** Folders whose files are test or bench support: production code never imports them. */
  testSupport: string[];
  /** File name patterns (regex) run as processes or workers, not imported. */
  entryPatterns: string[];
  /** Module path → why it has no `_test.ts` beside it. */
  untested: Record<string, string>;
}

/** The rules of this workspace (`data/workspace_rules.json`). */
export const WORKSPACE_RULES: WorkspaceRules = rulesData;

/** The workspace members. */
export const MEMBERS: readonly string[] = ["core", "collector", "shims", "mcp", "agents"];

/** Checks every rule; an empty list means the tree is in order. */
export function checkWorkspace(
  files: readonly SourceFile[],
  rules: WorkspaceRules = WORKSPACE_RULES,
): Violation[] {
  return [
    ...checkMemberImports(files, rules),
    ...checkForbiddenFolders(files, rules),
    ...checkLayers(files, rules),
    ...checkTestSupport(files, rules),
    ...checkThroughMod(files),
    ...checkPrivate(files),
    ...checkPublicOrPrivate(files, rules),
    ...checkTestsBeside(files, rules),
  ];
}

/** Is this a test module? */
export function isTest(path: string): boolean {
  return path.endsWith("_test.ts") || path.endsWith("_test.tsx");
}

function isTestdata(path: string): boolean {
  return path.split("/").includes("testdata");
}

function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/"));
}

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function memberOf(path: string): string {
  return path.split("/")[0];
}

function under(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder + "/");
}

/** Members import only the members the design allows (tests also the test harness). */
export function checkMemberImports(
  files: readonly SourceFile[],
  rules: WorkspaceRules,
): Violation[] {
  const out: Violation[] = [];
  for (const file of files) {
    const member = memberOf(file.path);
    const allowed = new Set([member, ...(rules.memberImports[member] ?? [])]);
    for (const [folder, extra] of Object.entries(rules.extraMemberImports)) {
      if (under(file.path, folder)) extra.forEach((m) => allowed.add(m));
    }
    for (const target of file.imports) {
      const to = memberOf(target);
      if (allowed.has(to)) continue;
      const harness = rules.testMemberImports[to] ?? [];
      if (
        (isTest(file.path) || isTestdata(file.path)) && harness.some((f) => under(target, f))
      ) continue;
      out.push({
        rule: "member-imports",
        file: file.path,
        message: `${member} may not import ${to} (${target}); allowed: ${[...allowed].join(", ")}`,
      });
    }
  }
  return out;
}

/** Folders that must never import others (the daemon never imports the CLI or the tooling). */
export function checkForbiddenFolders(
  files: readonly SourceFile[],
  rules: WorkspaceRules,
): Violation[] {
  const out: Violation[] = [];
  for (const file of files) {
    if (isTest(file.path)) continue;
    for (const [folder, forbidden] of Object.entries(rules.forbiddenFolders)) {
      if (!under(file.path, folder)) continue;
      for (const target of file.imports) {
        const hit = forbidden.find((f) => under(target, f));
        if (hit === undefined) continue;
        out.push({
          rule: "forbidden-folder",
          file: file.path,
          message: `${folder} must not import ${hit} (${target})`,
        });
      }
    }
  }
  return out;
}

/** Inside a layered folder, each subfolder imports only the siblings its row allows. */
export function checkLayers(files: readonly SourceFile[], rules: WorkspaceRules): Violation[] {
  const out: Violation[] = [];
  for (const [root, table] of Object.entries(rules.layers)) {
    const sub = (path: string) => under(path, root) ? path.slice(root.length + 1).split("/") : [];
    for (const file of files) {
      if (isTest(file.path) || isTestdata(file.path)) continue;
      const from = sub(file.path);
      if (from.length < 2) continue; // files at the root compose the folders
      const allowed = table[from[0]];
      if (allowed === undefined) continue;
      for (const target of file.imports) {
        const to = sub(target);
        if (to.length < 2 || to[0] === from[0] || allowed.includes(to[0])) continue;
        out.push({
          rule: "layers",
          file: file.path,
          message: `${root}/${from[0]} may import only ${
            allowed.length ? allowed.join(", ") : "nothing"
          } of ${root}, not ${to[0]} (${target})`,
        });
      }
    }
  }
  return out;
}

/** Production code never imports tests, testdata or test and bench support. */
export function checkTestSupport(
  files: readonly SourceFile[],
  rules: WorkspaceRules,
): Violation[] {
  const out: Violation[] = [];
  const support = (path: string) =>
    isTest(path) || isTestdata(path) || rules.testSupport.some((f) => under(path, f));
  for (const file of files) {
    if (support(file.path)) continue;
    for (const target of file.imports) {
      if (!support(target)) continue;
      out.push({
        rule: "test-support",
        file: file.path,
        message: `production code imports test or bench code ${target}`,
      });
    }
  }
  return out;
}

/**
 * A file in another folder is imported through that folder's `mod.ts` (or is one of its
 * member's declared entries); a subfolder may import its parent folders' files directly.
 */
export function checkThroughMod(files: readonly SourceFile[]): Violation[] {
  const out: Violation[] = [];
  const entries = new Set(files.filter((f) => f.entry).map((f) => f.path));
  for (const file of files) {
    // testdata scripts run as their own processes with narrow permissions: they import exactly
    // the module they exercise, not a whole folder's entry.
    if (isTestdata(file.path)) continue;
    for (const target of file.imports) {
      // A folder and its subfolders are one unit: a subfolder may use what its parents hold.
      if (under(file.path, dirOf(target)) || !/\.tsx?$/.test(target)) continue;
      if (baseOf(target) === "mod.ts" || isTestdata(target) || entries.has(target)) continue;
      if (file.exported.includes(target)) continue; // a member's declared public entry
      out.push({
        rule: "through-mod",
        file: file.path,
        message: `imports ${target} directly; import ${dirOf(target)}/mod.ts instead`,
      });
    }
  }
  return out;
}

/** A `_` file is imported only from its own folder (or below it). */
export function checkPrivate(files: readonly SourceFile[]): Violation[] {
  const out: Violation[] = [];
  for (const file of files) {
    for (const target of file.imports) {
      if (!baseOf(target).startsWith("_")) continue;
      if (under(file.path, dirOf(target))) continue;
      out.push({
        rule: "private",
        file: file.path,
        message: `imports ${target}, which is private to ${dirOf(target)}/`,
      });
    }
  }
  return out;
}

/** In a folder with a `mod.ts`, each module is re-exported by it or is `_`-private. */
export function checkPublicOrPrivate(
  files: readonly SourceFile[],
  rules: WorkspaceRules,
): Violation[] {
  const out: Violation[] = [];
  const mods = new Map(
    files.filter((f) => baseOf(f.path) === "mod.ts").map((f) => [dirOf(f.path), f]),
  );
  const entry = rules.entryPatterns.map((p) => new RegExp(p));
  for (const file of files) {
    const name = baseOf(file.path);
    const mod = mods.get(dirOf(file.path));
    if (mod === undefined || name === "mod.ts" || name.startsWith("_") || file.entry) continue;
    if (isTest(file.path) || isTestdata(file.path) || entry.some((p) => p.test(name))) continue;
    if (mod.reexports.includes(file.path)) continue;
    out.push({
      rule: "public-or-private",
      file: file.path,
      message: `${dirOf(file.path)}/mod.ts does not re-export it: export it there, or rename ` +
        `it _${name} if only its folder uses it`,
    });
  }
  return out;
}

/** Every module has `<name>_test.ts` beside it, or a stated reason in the rules. */
export function checkTestsBeside(
  files: readonly SourceFile[],
  rules: WorkspaceRules,
): Violation[] {
  const paths = new Set(files.map((f) => f.path));
  const out: Violation[] = [];
  for (const file of files) {
    if (isTest(file.path) || isTestdata(file.path) || !/\.tsx?$/.test(file.path)) continue;
    const test = file.path.replace(/\.(tsx?)$/, "_test.$1").replace(/_test\.tsx$/, "_test.ts");
    if (paths.has(test) || paths.has(test.replace(/_test\.ts$/, "_test.tsx"))) continue;
    if (baseOf(file.path) === "mod.ts" && file.imports.length === file.reexports.length) continue;
    if (rules.untested[file.path] !== undefined) continue;
    out.push({
      rule: "test-beside",
      file: file.path,
      message: `no ${baseOf(test)} beside it: add one, or state why in ` +
        "core/testing/data/workspace_rules.json (untested)",
    });
  }
  return out;
}

const IMPORT_PATTERNS = [
  /^\s*import\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']/gm,
  /^\s*export\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+["']([^"']+)["']/gm,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
];
const REEXPORT_PATTERN =
  /^\s*export\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+["']([^"']+)["']/gm;

/** What a bare workspace specifier (`@kiro-learn/core/storage`) resolves to. */
export type ExportMap = Map<string, string>;

/**
 * Reads one file's imports. Comments are stripped first so an example in a doc comment is not
 * taken for an import; `exports` resolves the workspace's bare specifiers.
 */
export function parseImports(
  path: string,
  source: string,
  options: { exports: ExportMap },
): SourceFile {
  // Comments that start a line are dropped, so an example in a doc comment is not an import.
  const code = source.replace(/^\s*\/\*[\s\S]*?\*\//gm, "").replace(/^\s*\/\/.*$/gm, "");
  const exported = new Set<string>();
  const resolve = (spec: string): string | null => {
    if (spec.startsWith("./") || spec.startsWith("../")) {
      const parts = dirOf(path).split("/");
      for (const part of spec.split("/")) {
        if (part === "..") parts.pop();
        else if (part !== ".") parts.push(part);
      }
      return parts.join("/");
    }
    const target = options.exports.get(spec) ?? null;
    if (target !== null) exported.add(target);
    return target;
  };
  const collect = (pattern: RegExp) =>
    [...code.matchAll(pattern)].map((m) => resolve(m[1])).filter((p): p is string => p !== null);
  const imports = [...new Set(IMPORT_PATTERNS.flatMap(collect))];
  const reexports = [...new Set(collect(REEXPORT_PATTERN))];
  return { path, imports, reexports, exported: [...exported] };
}

/** Reads every member's source files under `root` (a directory path ending in `/`). */
export async function scanWorkspace(root: string): Promise<SourceFile[]> {
  const exports: ExportMap = new Map();
  for (const member of MEMBERS) {
    const config = JSON.parse(await Deno.readTextFile(`${root}${member}/deno.json`));
    for (const [key, target] of Object.entries(config.exports as Record<string, string>)) {
      const name = key === "." ? config.name : `${config.name}/${key.slice(2)}`;
      exports.set(name, `${member}/${target.replace(/^\.\//, "")}`);
    }
  }
  const files: SourceFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(`${root}${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) {
        if (entry.name !== "node_modules" && !entry.name.startsWith(".")) await walk(path);
      } else if (/\.tsx?$/.test(entry.name)) {
        files.push(parseImports(path, await Deno.readTextFile(`${root}${path}`), { exports }));
      }
    }
  };
  for (const member of MEMBERS) await walk(member);
  const entries = new Set(exports.values());
  for (const f of files) f.entry = entries.has(f.path);
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Where things are in the kiro-learn checkout. This is the one place that knows the workspace
 * layout (the shim entries under `shims/`, the MCP entry `mcp/main.ts`, the root `deno.json`):
 * every path is computed from this module's own location, so the collector's `kiro-learn`
 * CLI, which may import only core, can launch the shims and the MCP server without importing
 * them. Moving a member or an entry means changing this file (a test pins that every path
 * here exists).
 *
 * @module
 */
import { fromFileUrl } from "../path.ts";

/** The surfaces a shim entry serves. `kiro-cli` also serves Kiro IDE 1.x `.kiro/hooks/*.json`. */
export type ShimSurface =
  | "kiro-cli"
  | "kiro-ide"
  | "claude-code"
  | "codex"
  | "gemini-cli"
  | "copilot-cli";

/** Entry module (under `shims/`) and compiled binary name (under `shims/bin/`) per surface. */
export const SHIM_ENTRIES: Readonly<Record<ShimSurface, { entry: string; bin: string }>> = Object
  .freeze({
    "kiro-cli": { entry: "kiro_cli.ts", bin: "kiro_cli" },
    "kiro-ide": { entry: "kiro_ide.ts", bin: "kiro_ide" },
    "claude-code": { entry: "claude_code.ts", bin: "claude_code" },
    "codex": { entry: "codex.ts", bin: "codex" },
    "gemini-cli": { entry: "gemini_cli.ts", bin: "gemini_cli" },
    "copilot-cli": { entry: "copilot_cli.ts", bin: "copilot_cli" },
  });

/** This module's location, relative to which the checkout's files are found. */
const HERE = import.meta.url;

/** The checkout's root folder (no trailing separator). */
export const REPO_ROOT: string = fromFileUrl(new URL("../../", HERE)).replace(/[\\/]$/, "");

/** The workspace config (import map, lock) every `deno run` / `deno compile` of an entry uses. */
export const WORKSPACE_CONFIG: string = fromFileUrl(new URL("../../deno.json", HERE));

/**
 * Flags of every `deno run` kiro-learn starts (collector, onnx child, shims, MCP server, the
 * CLI's launcher): no remote module (`https:`, `jsr:`) is ever resolved, and npm packages come
 * from the local cache only. Without them a dynamic `import()` may fetch from Deno's default
 * import hosts (deno.land, jsr.io, esm.sh, cdn.jsdelivr.net, raw.githubusercontent.com, …)
 * whatever `--allow-net` says, and an npm specifier from the registry. Every module kiro-learn
 * runs is local or a cached npm package, so this costs nothing.
 */
export const LOCAL_MODULES_ONLY: readonly string[] = Object.freeze([
  "--no-remote",
  "--cached-only",
]);

/**
 * The environment of every `deno` kiro-learn starts (launchers, the starter, the daemon and its
 * children, the CLI's own children, `deno task`'s runs): `DENO_NO_UPDATE_CHECK`, because a
 * `deno run` that lives a second or two with a fresh `DENO_DIR` (a new machine, a cleared
 * cache, a sandboxed agent) otherwise opens `CONNECT dl.deno.land:443` to look for a newer Deno,
 * and nothing but the LLM calls may leave the machine; `DENO_NO_PROMPT`, the environment's
 * `--no-prompt` (a permission prompt would hang a hook or a daemon with no terminal).
 */
export const DENO_ENV: Readonly<Record<string, string>> = Object.freeze({
  DENO_NO_UPDATE_CHECK: "1",
  DENO_NO_PROMPT: "1",
});

/** {@linkcode DENO_ENV} as sh assignments (`NAME=value NAME=value`), to prefix one command. */
export function denoEnvAssignments(): string {
  return Object.entries(DENO_ENV).map(([name, value]) => `${name}=${value}`).join(" ");
}

/** {@linkcode DENO_ENV} as sh lines, for the scripts kiro-learn writes (before their `exec`). */
export function denoEnvLines(): string[] {
  return [denoEnvAssignments(), `export ${Object.keys(DENO_ENV).join(" ")}`];
}

/** Where compiled shims live (with a trailing separator). */
export const SHIM_BIN_DIR: string = fromFileUrl(new URL("../../shims/bin/", HERE));

/** The `kiro-learn` CLI's entry module. */
export const CLI_ENTRY: string = fromFileUrl(new URL("../../collector/main.ts", HERE));

/** The entry that imports past Claude Code sessions from their transcripts. */
export const CLAUDE_IMPORT_ENTRY: string = fromFileUrl(
  new URL("../../shims/claude_import.ts", HERE),
);

/** The MCP server's entry module. */
export const MCP_ENTRY: string = fromFileUrl(new URL("../../mcp/main.ts", HERE));

/** Claude Code's headers helper for the collector's MCP route. */
export const MCP_HEADERS_ENTRY: string = fromFileUrl(
  new URL("../../shims/mcp_headers.ts", HERE),
);

/** Absolute path of a surface's shim entry module. */
export function shimEntryPath(surface: ShimSurface): string {
  return fromFileUrl(new URL(`../../shims/${SHIM_ENTRIES[surface].entry}`, HERE));
}

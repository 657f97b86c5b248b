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
export type ShimSurface = "kiro-cli" | "kiro-ide" | "claude-code" | "gemini-cli";

/** Entry module (under `shims/`) and compiled binary name (under `shims/bin/`) per surface. */
export const SHIM_ENTRIES: Readonly<Record<ShimSurface, { entry: string; bin: string }>> = Object
  .freeze({
    "kiro-cli": { entry: "kiro_cli.ts", bin: "kiro_cli" },
    "kiro-ide": { entry: "kiro_ide.ts", bin: "kiro_ide" },
    "claude-code": { entry: "claude_code.ts", bin: "claude_code" },
    "gemini-cli": { entry: "gemini_cli.ts", bin: "gemini_cli" },
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

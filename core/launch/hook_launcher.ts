/**
 * The hooks' launchers: one small shell script per shim surface (and one for the MCP server) in
 * `<data dir>/bin/`, written by `kiro-learn install`. Agents' config files name the launcher
 * instead of the Deno binary and the checkout, so a file a team commits (`.kiro/hooks/*.json`,
 * `.claude/settings.json`, `.mcp.json`) holds no machine's paths: `"$HOME"/.kiro-learn/bin/…`
 * resolves on every teammate's machine where kiro-learn is installed, and fails quietly
 * (`|| true`) where it is not — `kiro-learn doctor` reports such a hook.
 *
 * The launcher also finds the hook's project root at run time (the nearest folder above the
 * working directory that holds `.git`) and adds it to the shim's read permission, with the git
 * dir a `.git` file points to (a worktree's main repository, a submodule's module dir). So a
 * hook fired anywhere inside a project outside `$HOME` (`/srv/app/src/lib`) resolves the same
 * project, and the same remote-derived id, as one fired at its root or as the CLI, while the
 * shim still reads only the data dir, `$HOME` and that one repository.
 *
 * @module
 */
import { join } from "../path.ts";
import type { Settings } from "../settings/mod.ts";
import { mcpCommand, type McpCommandOptions, mcpHeadersCommand } from "./mcp.ts";
import type { ShimSurface } from "./layout.ts";
import { shellQuote, shimCommand, type ShimCommandOptions } from "./shim.ts";

/** How a config file names the data dir when it is the default one: expanded by the shell. */
export const HOME_DATA_DIR = "$HOME/.kiro-learn";

/**
 * Where the launcher of a shim surface, of the stdio MCP server (`mcp`) or of Claude Code's MCP
 * headers helper (`mcp-headers`) lives in the data dir.
 */
export function launcherPath(binDir: string, name: ShimSurface | "mcp" | "mcp-headers"): string {
  if (name === "mcp") return join(binDir, "mcp-server");
  if (name === "mcp-headers") return join(binDir, "mcp-headers");
  return join(binDir, `hook-${name}`);
}

/**
 * `path` as config files should name it: under the default data dir of `home` it is written
 * `$HOME/.kiro-learn/…` (the same on every machine); anything else stays absolute.
 */
export function portablePath(path: string, options: { home: string; dataDir: string }): string {
  const standard = join(options.home, ".kiro-learn");
  if (options.dataDir !== standard || !path.startsWith(standard + "/")) return path;
  return HOME_DATA_DIR + path.slice(standard.length);
}

// Finds the project root in plain sh (no git process, no external command: a hook is hot).
const FIND_ROOT = [
  "root=",
  'dir="$PWD"',
  'while [ -n "$dir" ]; do',
  '  if [ -e "$dir/.git" ]; then root="$dir"; break; fi',
  '  dir="${dir%/*}"',
  "done",
  "# A worktree's or submodule's .git is a file naming its git dir, which may lie outside every",
  "# other read root: the shim reads the remote there (for a worktree, in the main repository's",
  "# git dir, which holds the worktree's), so it resolves the project id the CLI does.",
  "gitdir=",
  'if [ -n "$root" ] && [ -f "$root/.git" ]; then',
  '  IFS= read -r line < "$root/.git" || true',
  '  case "$line" in "gitdir: "*) gitdir="${line#gitdir: }" ;; esac',
  '  case "$gitdir" in /*|"") ;; *) gitdir="$root/$gitdir" ;; esac',
  '  gitdir="${gitdir%/worktrees/*}"',
  "fi",
  "# Never the whole disk, and never a path with a comma (it would split the permission list).",
  'case "$root" in /|*,*) root= ;; esac',
  'case "$gitdir" in /|*,*) gitdir= ;; esac',
];

/** The launcher of a shim surface: finds the project root, then execs the shim. */
export function hookLauncherScript(
  surface: ShimSurface,
  options: Omit<ShimCommandOptions, "args" | "projectRoots">,
): string {
  const argv = shimCommand(surface, { ...options, args: [] });
  const words = argv.map((arg) =>
    arg.startsWith("--allow-read=")
      ? `${shellQuote(arg)}"\${root:+,$root}\${gitdir:+,$gitdir}"`
      : shellQuote(arg)
  );
  return [
    "#!/bin/sh",
    `# Written by \`kiro-learn install\`: runs the ${surface} hook of kiro-learn with its`,
    "# permissions, adding the hook's project root (the nearest folder holding .git) to what it",
    "# may read. Rewritten by every install; removed by uninstall.",
    ...FIND_ROOT,
    `exec ${words.join(" ")} "$@"`,
    "",
  ].join("\n");
}

/** The launcher of the MCP server. */
export function mcpLauncherScript(options: McpCommandOptions): string {
  return [
    "#!/bin/sh",
    "# Written by `kiro-learn install`: runs kiro-learn's MCP server with its permissions.",
    `exec ${mcpCommand(options).map(shellQuote).join(" ")} "$@"`,
    "",
  ].join("\n");
}

/** The argument by which the headers helper's launcher hands over the agent's folder. */
export const AGENT_CWD_ARG = "--agent-cwd=";

// Finds the agent's working directory in plain sh: Deno refuses to read another process's /proc
// entries without --allow-all, while sh reads them freely. Claude Code runs the helper in its
// config folder through `sh -c`, so the agent is the nearest ancestor whose folder differs.
const FIND_AGENT_CWD = [
  "agent_cwd=",
  "here=$(pwd -P)",
  "pid=$PPID",
  "for _ in 1 2 3 4; do",
  '  [ "$pid" -gt 1 ] 2>/dev/null || break',
  '  dir=$(cd -P "/proc/$pid/cwd" 2>/dev/null && pwd -P) || break',
  '  if [ "$dir" != "$here" ]; then agent_cwd=$dir; break; fi',
  '  read -r stat < "/proc/$pid/stat" || break',
  "  # The fields after the command name (in parentheses): state, then the parent's pid.",
  "  set -- ${stat##*) }",
  "  pid=$2",
  "done",
];

/**
 * The launcher of Claude Code's MCP headers helper: finds the agent's folder, then execs the
 * helper with it ({@linkcode AGENT_CWD_ARG}).
 */
export function mcpHeadersLauncherScript(argv: readonly string[]): string {
  return [
    "#!/bin/sh",
    "# Written by `kiro-learn install`: prints the headers (token, project) Claude Code sends to",
    "# the collector's MCP route. Rewritten by every install; removed by uninstall.",
    ...FIND_AGENT_CWD,
    `exec ${argv.map(shellQuote).join(" ")} "${AGENT_CWD_ARG}$agent_cwd"`,
    "",
  ].join("\n");
}

/** Every launcher of an installation: where it goes and what it holds. */
export function launcherFiles(
  settings: Pick<Settings, "dataDir" | "paths" | "collector">,
  options: { denoPath?: string; home?: string } = {},
): { path: string; content: string }[] {
  const surfaces: ShimSurface[] = ["kiro-cli", "kiro-ide", "claude-code"];
  const common = { settings, denoPath: options.denoPath, home: options.home, preferCompiled: true };
  return [
    ...surfaces.map((surface) => ({
      path: launcherPath(settings.paths.bin, surface),
      content: hookLauncherScript(surface, common),
    })),
    {
      path: launcherPath(settings.paths.bin, "mcp"),
      content: mcpLauncherScript({
        host: settings.collector.host,
        port: settings.collector.port,
        execPath: options.denoPath,
      }),
    },
    {
      path: launcherPath(settings.paths.bin, "mcp-headers"),
      content: mcpHeadersLauncherScript(
        mcpHeadersCommand(settings, { denoPath: options.denoPath, home: options.home }),
      ),
    },
  ];
}

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
import {
  HOOK_FAST_PATH_BUDGET_S,
  HOOK_GIT_CONFIG_QUERY,
  HOOK_HEADERS,
  ROUTES,
} from "../api/wire.ts";
import { FIRING_ARG, NO_WAIT_ARG } from "../hooks/mod.ts";
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

/**
 * The launcher of a shim surface: finds the project root, then execs the shim. Claude Code's
 * launcher first tries the fast path ({@linkcode claudeFastPath}).
 */
export function hookLauncherScript(
  surface: ShimSurface,
  options: Omit<ShimCommandOptions, "args" | "projectRoots">,
): string {
  const argv = shimCommand(surface, { ...options, args: [] });
  const words = argv.map((arg) =>
    arg.startsWith("--allow-read=")
      ? `${shellQuote(arg)}"\${root:+,$root}\${gitdir:+,$gitdir}"`
      : shellQuote(arg)
  ).join(" ");
  const head = [
    "#!/bin/sh",
    `# Written by \`kiro-learn install\`: runs the ${surface} hook of kiro-learn with its`,
    "# permissions, adding the hook's project root (the nearest folder holding .git) to what it",
    "# may read. Rewritten by every install; removed by uninstall.",
    ...FIND_ROOT,
  ];
  if (surface !== "claude-code") return [...head, `exec ${words} "$@"`, ""].join("\n");
  return [...head, ...claudeFastPath(options.settings, words), ""].join("\n");
}

/**
 * Claude Code's fast path, in plain POSIX sh: when curl is there and the collector's Unix socket
 * exists, the payload (read into a variable, never written to disk) is posted raw to the
 * collector, which runs the shim's own plan and answers with what the hook prints. Taken only
 * when the project is unambiguous without Deno (a `.git` folder above the physical working
 * directory, below `$HOME`'s own level; the collector's sandbox cannot read the project). Any
 * failure (no answer within the hook's budget, a refused connection, a 4xx/5xx) hands the same
 * payload to the shim, which delivers or spools it under the same event id (derived from the
 * firing key, `<ns>-<pid>`). A timeout leaves a marker, and every hook after it waits only the
 * short `unanswered` budget and spools without waiting again, until a call is answered.
 *
 * The repository's config file goes along (curl reads and URL-encodes it: `--url-query`, curl
 * 7.87 or later; an older curl fails the call and the shim takes over), so the collector derives
 * the project id from the remote exactly as `resolveProject` does.
 */
export function claudeFastPath(
  settings: Pick<Settings, "paths" | "collector">,
  shimWords: string,
): string[] {
  const q = shellQuote;
  const budget = HOOK_FAST_PATH_BUDGET_S;
  const retrieving = ["SessionStart", "UserPromptSubmit"].flatMap((hook) => [
    `*'"hook_event_name":"${hook}"'*`,
    `*'"hook_event_name": "${hook}"'*`,
  ]).join("|");
  const host = settings.collector.host.includes(":")
    ? `[${settings.collector.host}]`
    : settings.collector.host;
  const url = `http://${host}:${settings.collector.port}${ROUTES.claudeCodeHook}`;
  return [
    "# The memory system's own agents are never recorded (the shim would exit at once too).",
    'case "${KIRO_LEARN_INTERNAL:-0}" in 0) ;; *) exit 0 ;; esac',
    `sock=${q(settings.paths.socket)}`,
    `auth=${q(settings.paths.hookAuth)}`,
    `unanswered=${q(settings.paths.unanswered)}`,
    'if [ -S "$sock" ] && [ -r "$auth" ] && command -v curl >/dev/null 2>&1; then',
    "  # The project as the shim would resolve it, when a .git folder decides it: from the",
    "  # physical working directory, never $HOME itself or above it (builtins only: a hook is hot).",
    "  cwd=$PWD fast= groot= home=",
    "  if cd -P . 2>/dev/null; then",
    "    here=$PWD",
    '    if [ -n "$HOME" ] && cd -P "$HOME" 2>/dev/null; then home=$PWD; fi',
    '    cd "$here" 2>/dev/null || exit 0',
    "    dir=$here",
    '    while [ -n "$dir" ]; do',
    '      if [ -e "$dir/.git" ]; then groot=$dir; break; fi',
    '      dir="${dir%/*}"',
    "    done",
    '    if [ -n "$groot" ] && [ -d "$groot/.git" ]; then',
    '      case "$home/" in "$groot"/*) ;; *) fast=1 ;; esac',
    "    fi",
    "  fi",
    '  actor=$USER; [ -n "$actor" ] || actor=$USERNAME; [ -n "$actor" ] || actor=$LOGNAME',
    '  [ -n "$actor" ] || actor=unknown',
    "  host=",
    "  { read -r host </proc/sys/kernel/hostname; } 2>/dev/null || host=$(uname -n 2>/dev/null)",
    "  # Header values stay printable single lines.",
    '  case "$cwd$groot$actor$host" in *[![:print:]]*) fast= ;; esac',
    '  if [ -n "$fast" ]; then',
    "    payload=$(cat)",
    "    firing=$(date +%s%N 2>/dev/null)",
    '    case "$firing" in ""|*[!0-9]*) firing= ;; *) firing="$firing-$$" ;; esac',
    `    budget=${budget.store}`,
    `    case "$payload" in ${retrieving}) budget=${budget.retrieve} ;; esac`,
    `    [ -e "$unanswered" ] && budget=${budget.unanswered}`,
    `    out=$(printf '%s' "$payload" | curl --silent --fail --max-time "$budget" \\`,
    `      --unix-socket "$sock" -H @"$auth" -H 'Content-Type: application/json' \\`,
    `      -H "${HOOK_HEADERS.cwd}: $cwd" -H "${HOOK_HEADERS.root}: $groot" \\`,
    `      -H "${HOOK_HEADERS.actor}: $actor" -H "${HOOK_HEADERS.client}: $host" \\`,
    `      -H "${HOOK_HEADERS.firing}: $firing" --data-binary @- \\`,
    `      --url-query "${HOOK_GIT_CONFIG_QUERY}@$groot/.git/config" ${q(url)}; printf '/%s' "$?")`,
    "    code=${out##*/}",
    "    out=${out%/*}",
    '    if [ "$code" = 0 ]; then',
    '      [ -e "$unanswered" ] && rm -f "$unanswered"',
    "      printf '%s' \"$out\"",
    "      exit 0",
    "    fi",
    "    # Not answered in time: the shim spools without waiting on the collector again.",
    `    nowait=; if [ "$code" = 28 ]; then : >"$unanswered"; nowait=${NO_WAIT_ARG}; fi`,
    `    printf '%s\\n' "$payload" | exec ${shimWords} \${firing:+"${FIRING_ARG}$firing"} $nowait "$@"`,
    "    exit",
    "  fi",
    "fi",
    `exec ${shimWords} "$@"`,
  ];
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

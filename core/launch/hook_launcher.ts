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
  HOOK_ROUTES,
  MCP_HEADERS_FAST_PATH_BUDGET_S,
  MCP_NAMESPACE_HEADER,
  MCP_RELAY_BUDGET_S,
  ROUTES,
} from "../api/wire.ts";
import {
  type FastPathSurface,
  FIRING_ARG,
  HOOK_AGENTS,
  NO_WAIT_ARG,
  STORE_ONLY_ARG,
  TURN_TOOLS_ARG,
} from "../hooks/mod.ts";
import { join } from "../path.ts";
import type { Settings } from "../settings/mod.ts";
import { mcpCommand, type McpCommandOptions, mcpHeadersCommand } from "./mcp.ts";
import { denoEnvLines, SHIM_ENTRIES, type ShimSurface } from "./layout.ts";
import { shellQuote, shimCommand, type ShimCommandOptions } from "./shim.ts";

/** How a config file names the data dir when it is the default one: expanded by the shell. */
export const HOME_DATA_DIR = "$HOME/.kiro-learn";

/** The launchers that are not a shim surface's. */
export type McpLauncher = "mcp" | "mcp-headers" | "mcp-relay";

/**
 * Where the launcher of a shim surface, of the stdio MCP server (`mcp`), of Claude Code's MCP
 * headers helper (`mcp-headers`) or of the stdio relay to the collector's MCP route
 * (`mcp-relay`) lives in the data dir.
 */
export function launcherPath(binDir: string, name: ShimSurface | McpLauncher): string {
  if (name === "mcp") return join(binDir, "mcp-server");
  if (name === "mcp-headers") return join(binDir, "mcp-headers");
  if (name === "mcp-relay") return join(binDir, "mcp-relay");
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

// Finds the project root in plain sh (no git process, no external command: a hook is hot), and
// canonicalises every folder the shim will be allowed to read: `cd -P` (a builtin) resolves
// `.`, `..`, `//` and symlinks, so `gitdir: /.`, `//` or `/etc/..` come out as `/`, which is
// refused like a path with a comma (it would split the permission list). A git dir must also
// look like one (named `.git`, inside one, or `*.git`, holding HEAD): a `.git` file naming
// another folder (`gitdir: /etc`) widens nothing.
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
  "here=$PWD",
  'if [ -n "$root" ]; then',
  '  if cd -P -- "$root" 2>/dev/null; then root=$PWD; else root=; fi',
  '  if [ -n "$gitdir" ] && cd -P -- "$gitdir" 2>/dev/null; then gitdir=$PWD; else gitdir=; fi',
  "  # Back to the hook's folder (a folder that vanished has nothing to record).",
  '  cd -- "$here" 2>/dev/null || exit 0',
  "fi",
  '[ -f "$gitdir/HEAD" ] || gitdir=',
  'case "$gitdir" in */.git|*/.git/*|*.git) ;; *) gitdir= ;; esac',
  "# Never the whole disk, and never a path with a comma (it would split the permission list).",
  'case "$root" in /|*,*) root= ;; esac',
  'case "$gitdir" in /|*,*) gitdir= ;; esac',
];

// The agent's own folder, named by a variable of its own (Claude Code keeps its transcripts in
// `$CLAUDE_CONFIG_DIR/projects`, Codex CLI its rollouts in `$CODEX_HOME/sessions`, Copilot CLI its
// session state in `$COPILOT_HOME/session-state`)
// when that is set: an absolute folder of this user's, canonicalised as the project root is,
// never the whole disk, never with a comma. Under $HOME the shim may read it already.
const AGENT_DIRS: Partial<Record<ShimSurface, string>> = {
  "claude-code": "CLAUDE_CONFIG_DIR",
  "copilot-cli": "COPILOT_HOME",
  codex: "CODEX_HOME",
};

/** sh lines setting `agentdir` to the agent's own folder ({@linkcode AGENT_DIRS}), or nothing. */
function agentDirLines(variable: string): string[] {
  return [
    `agentdir=\${${variable}:-}`,
    'case "$agentdir" in /*) ;; *) agentdir= ;; esac',
    'if [ -n "$agentdir" ] && [ -O "$agentdir" ] && cd -P -- "$agentdir" 2>/dev/null; then',
    "  agentdir=$PWD",
    '  cd -- "$here" 2>/dev/null || exit 0',
    "else",
    "  agentdir=",
    "fi",
    'case "$agentdir" in /|*,*) agentdir= ;; esac',
  ];
}

/**
 * The launcher of a shim surface: finds the project root, then execs the shim. The launchers of
 * the agents that hand their hooks one JSON payload ({@linkcode HOOK_AGENTS}: Claude Code, Codex
 * CLI, Gemini CLI, Copilot CLI) first try the fast path ({@linkcode hookFastPath}).
 */
export function hookLauncherScript(
  surface: ShimSurface,
  options: Omit<ShimCommandOptions, "args" | "projectRoots">,
): string {
  const argv = shimCommand(surface, { ...options, args: [] });
  const dirVariable = AGENT_DIRS[surface];
  // The agent's own folder, when it is not under $HOME (which the shim may read): a turn's end
  // reads the session's transcript there.
  const extra = dirVariable ? "\${agentdir:+,$agentdir}" : "";
  const words = argv.map((arg) =>
    arg.startsWith("--allow-read=")
      ? `${shellQuote(arg)}"\${root:+,$root}\${gitdir:+,$gitdir}${extra}"`
      : shellQuote(arg)
  ).join(" ");
  const head = [
    "#!/bin/sh",
    `# Written by \`kiro-learn install\`: runs the ${surface} hook of kiro-learn with its`,
    "# permissions, adding the hook's project root (the nearest folder holding .git) to what it",
    "# may read. Rewritten by every install; removed by uninstall.",
    ...denoEnvLines(),
    ...FIND_ROOT,
  ];
  if (!isFastPathSurface(surface)) return [...head, `exec ${words} "$@"`, ""].join("\n");
  const fast = hookFastPath(surface, { settings: options.settings, shimWords: words });
  return [...head, ...(dirVariable ? agentDirLines(dirVariable) : []), ...fast, ""].join("\n");
}

/** Whether a surface's hooks take the fast path (its agent hands each hook one JSON payload). */
function isFastPathSurface(surface: ShimSurface): surface is FastPathSurface {
  return Object.hasOwn(HOOK_AGENTS, surface);
}

/**
 * An agent's fast path ({@linkcode HOOK_AGENTS}), in plain POSIX sh: when curl is there and the
 * collector's Unix socket exists, the payload (read into a variable, never written to disk) is
 * posted raw to the agent's hook route ({@linkcode HOOK_ROUTES}), where the collector runs the
 * shim's own plan and answers with what the hook prints, in the agent's format. Taken only when
 * the project is unambiguous without Deno (a `.git` folder above the physical working
 * directory, below `$HOME`'s own level; the collector's sandbox cannot read the project). Any
 * failure (no answer within the hook's budget, a refused connection, a 4xx/5xx) hands the same
 * payload to the shim, which delivers or spools it under the same event id (derived from the
 * firing key, `<ns>-<pid>`). A timeout leaves a marker, and every hook after it waits only the
 * short `unanswered` budget and spools without waiting again, until a call is answered. Whatever
 * fails, the hook prints what the agent accepts (Gemini CLI: one JSON object, `{}` when it has
 * nothing to say) and exits 0.
 *
 * The repository's config file goes along (curl reads and URL-encodes it: `--url-query`, curl
 * 7.87 or later; an older curl fails the call and the shim takes over), so the collector derives
 * the project id from the remote exactly as `resolveProject` does.
 *
 * A hook that only stores (the agent's `store` hooks, and `SessionStart` at its `quietStarts`
 * sources) keeps the agent waiting no longer than it takes to take the firing key and, unless the
 * installer named it a store hook ({@linkcode STORE_ONLY_ARG}: the background then reads the
 * payload), to read the payload: the same delivery (curl, else the shim, which delivers or
 * spools; the shim alone off the fast path; for a turn's end, the agent's `turnEnd`, the shim
 * first, which reads the turn's tool uses from the agent's own files, then curl if it cannot
 * start) then goes on in a background subshell, and the launcher exits. A hook that records
 * nothing (the agent's `ignored` hooks: tool hooks whose uses the turn's end reads) returns at
 * once. Claude Code's own `"async": true` is no substitute: in a `claude -p` session it kills a
 * background hook's process group when the turn ends, a Stop hook's delivery with it.
 */
export function hookFastPath(
  surface: FastPathSurface,
  options: { settings: Pick<Settings, "paths" | "collector">; shimWords: string },
): string[] {
  const { settings, shimWords } = options;
  const agent = HOOK_AGENTS[surface];
  const q = shellQuote;
  const budget = HOOK_FAST_PATH_BUDGET_S;
  // Copilot CLI's hook command names the event (its first argument): the launcher classifies a
  // firing before it reads the payload, and a store hook's payload is read in the background.
  const byArgument = agent.eventFrom === "argument";
  const named = (hooks: readonly string[]) =>
    byArgument ? hooks.join("|") : hooks.flatMap((hook) => [
      `*'"hook_event_name":"${hook}"'*`,
      `*'"hook_event_name": "${hook}"'*`,
    ]).join("|");
  const shim = (tail: string) =>
    `printf '%s\\n' "$payload" | ${shimWords} \${firing:+"${FIRING_ARG}$firing"} ${tail} "$@"`;
  const cases = [
    // A quiet start is delivered in the background, but on the budget of a hook that retrieves:
    // a collector slow to answer at a session's start would otherwise leave the `unanswered`
    // marker, and the session's first prompt, which now carries the start block, would spool.
    ...(agent.quietStarts.length === 0
      ? []
      : [`    ${quietStarts(agent.quietStarts)}) store=1 budget=${budget.retrieve} ;;`]),
    `    ${named(agent.retrieve)}) budget=${budget.retrieve} ;;`,
    // A turn's end goes to the shim, which reads the turn's tool uses from the agent's files (the
    // collector may not read them) and delivers them before the turn's end.
    ...(agent.turnEnd === undefined
      ? []
      : [`    ${named([agent.turnEnd])}) store=1 tools=${TURN_TOOLS_ARG} ;;`]),
    `    ${named(agent.ignored)}) printf '%s' "$silent"; exit 0 ;;`,
    `    ${named(agent.store)}) store=1 ;;`,
  ];
  return [
    `silent=${q(agent.silent)}`,
    ...(agent.turnEndAfterExit ? ["agent=$PPID"] : []),
    "# The memory system's own agents are never recorded (the shim would exit at once too).",
    `case "\${KIRO_LEARN_INTERNAL:-0}" in 0) ;; *) printf '%s' "$silent"; exit 0 ;; esac`,
    ...socketVariables(settings),
    `unanswered=${q(settings.paths.unanswered)}`,
    "fast=",
    'if [ -S "$sock" ] && [ -r "$auth" ] && command -v curl >/dev/null 2>&1; then',
    "  cwd=$PWD",
    // The shim fallback runs in the hook's folder: a folder that vanished has nothing to record.
    ...gitProjectLines({ start: ".", lost: `{ printf '%s' "$silent"; exit 0; }` }).map((l) =>
      `  ${l}`
    ),
    "fi",
    // The firing's clock is read here, before the hook returns, so in the order the agent fires
    // its hooks: a background delivery's event id comes from it, so events keep that order
    // whenever they are stored.
    ...(byArgument
      ? [
        "event=${1:-}",
        // A header value: one printable line, else the shim (which names the event itself).
        'case "$event" in ""|*[![:print:]]*) fast= ;; esac',
      ]
      : []),
    "firing=$(date +%s%N 2>/dev/null)",
    'case "$firing" in ""|*[!0-9]*) firing= ;; *) firing="$firing-$$" ;; esac',
    `budget=${budget.store} store= took= tools=`,
    "classify() {",
    `  case ${byArgument ? '"$event"' : '"$payload"'} in`,
    ...cases,
    "  esac",
    "}",
    // The installer marks the hooks that only store: their payload is read in the background.
    ...(byArgument ? ["classify", '[ -n "$store" ] || { payload=$(cat) took=1; }'] : [
      `if [ "$1" = ${STORE_ONLY_ARG} ]; then`,
      "  store=1",
      "  shift",
      "else",
      "  payload=$(cat) took=1",
      "  classify",
      "fi",
    ]),
    'if [ -n "$fast" ]; then',
    "  deliver() {",
    // A turn's end: the shim reads the agent's files (in the background: no one waits for it, so
    // it tries the collector even after an unanswered call). A shim that cannot start (no Deno)
    // fails, and the turn's end still goes over the socket. Not at a lower priority: a collector
    // the shim starts would inherit it for good.
    '    if [ -n "$tools" ]; then',
    ...(agent.turnEndAfterExit ? ["      settle"] : []),
    `      ${shim("$tools")} && { recheck; exit 0; }`,
    "    fi",
    `    [ -e "$unanswered" ] && budget=${budget.unanswered}`,
    `    out=$(printf '%s' "$payload" | curl --silent --fail --max-time "$budget" \\`,
    `      ${projectCurlArgs()} \\`,
    `      -H 'Content-Type: application/json' -H "${HOOK_HEADERS.client}: $host" \\`,
    `      -H "${HOOK_HEADERS.firing}: $firing" --data-binary @- \\`,
    ...(byArgument ? [`      -H "${HOOK_HEADERS.event}: $event" \\`] : []),
    `      ${q(socketUrl(settings, HOOK_ROUTES[surface]))}; printf '/%s' "$?")`,
    "    code=${out##*/}",
    "    out=${out%/*}",
    '    if [ "$code" = 0 ]; then',
    '      [ -e "$unanswered" ] && rm -f "$unanswered"',
    "      printf '%s' \"$out\"",
    "      exit 0",
    "    fi",
    "    # Not answered in time: the shim spools without waiting on the collector again.",
    `    nowait=; if [ "$code" = 28 ]; then : >"$unanswered"; nowait=${NO_WAIT_ARG}; fi`,
    // A shim that cannot start prints nothing: the agent still gets what it accepts.
    `    ${shim("$nowait")} || printf '%s' "$silent"`,
    "  }",
    // The marker is cleared by the next call answered over the socket; a turn's end goes to the
    // shim instead, so, in the background where no one waits, it asks the collector whether it
    // answers again. Without it, an agent whose only other hook is the prompt's (Codex, Gemini
    // CLI) would spool every prompt without its memory until the collector restarts.
    ...(agent.turnEndAfterExit ? settleLines() : []),
    "  recheck() {",
    '    [ -e "$unanswered" ] || return 0',
    `    curl --silent --fail --max-time ${budget.retrieve} --noproxy '*' --unix-socket "$sock" \\`,
    `      -o /dev/null ${q(socketUrl(settings, ROUTES.health))} && rm -f "$unanswered"`,
    "  }",
    "else",
    `  deliver() { ${shim("$tools")} || printf '%s' "$silent"; }`,
    "fi",
    "# A hook that only stores: the agent waits for the hook's pipes to close, so the delivery",
    "# goes on in a background subshell off them (deaf to a terminal's hangup), and the hook is",
    "# done. It ends within its own budget: curl's, then the shim's, once it has the payload.",
    'if [ -n "$store" ]; then',
    "  printf '%s' \"$silent\"",
    '  if [ -n "$took" ]; then',
    "    (trap '' HUP; deliver \"$@\") </dev/null >/dev/null 2>&1 &",
    "  else",
    "    # The payload is not read yet: the background reads it (to the end the agent closes).",
    "    # An asynchronous list's stdin is /dev/null, so the hook's goes along as fd 3.",
    "    exec 3<&0",
    "    (trap '' HUP; exec 0<&3 3<&-; payload=$(cat); classify; deliver \"$@\") >/dev/null 2>&1 &",
    "  fi",
    "  exit 0",
    "fi",
    'deliver "$@"',
    // The hook command execs this script: whatever the shim's end, the hook never fails.
    "exit 0",
  ];
}

/**
 * How long, at most, a turn's end waits in the background for the agent's process to exit
 * before its shim starts ({@linkcode HOOK_AGENTS}' `turnEndAfterExit`), in seconds: a headless
 * session exits a second or so after its last hook; an interactive one waits for its user, who
 * gets the turn recorded this long after it ended.
 */
export const TURN_END_SETTLE_S = 3;

/** How often the turn's end looks whether the agent has exited, in seconds. */
const SETTLE_POLL_S = 0.05;

/**
 * sh lines defining `settle`: waits, polling with `kill -0` (a builtin), while the hook's parent
 * (the agent, which runs the hook command with `exec`) lives, for {@linkcode TURN_END_SETTLE_S}
 * at most. A `sleep` that takes no fraction ends the wait at once.
 */
function settleLines(): string[] {
  const polls = Math.round(TURN_END_SETTLE_S / SETTLE_POLL_S);
  return [
    "  settle() {",
    "    n=0",
    `    while [ "$n" -lt ${polls} ] && kill -0 "$agent" 2>/dev/null; do`,
    `      sleep ${SETTLE_POLL_S} 2>/dev/null || break`,
    "      n=$((n + 1))",
    "    done",
    "  }",
  ];
}

/**
 * `case` patterns of a `SessionStart` payload at a source where the hook only stores: both
 * fields in either order, with or without a space after the colon. Quotes inside JSON strings
 * are escaped, so no prompt or path can imitate them.
 */
function quietStarts(sources: readonly string[]): string {
  return sources.flatMap((source) =>
    [":", ": "].flatMap((colon) => {
      const hook = `"hook_event_name"${colon}"SessionStart"`;
      const from = `"source"${colon}"${source}"`;
      return [`*'${hook}'*'${from}'*`, `*'${from}'*'${hook}'*`];
    })
  ).join("|");
}

/** sh lines naming the collector's Unix socket (`sock`) and its header file (`auth`). */
function socketVariables(settings: Pick<Settings, "paths">): string[] {
  return [
    `sock=${shellQuote(settings.paths.socket)}`,
    `auth=${shellQuote(settings.paths.hookAuth)}`,
  ];
}

/** The URL curl asks for over the socket: the collector's own address, the Host it checks. */
function socketUrl(settings: Pick<Settings, "collector">, route: string): string {
  const host = settings.collector.host.includes(":")
    ? `[${settings.collector.host}]`
    : settings.collector.host;
  return `http://${host}:${settings.collector.port}${route}`;
}

/**
 * Finds, in plain sh, the project as `resolveProject` decides it when a `.git` folder does: from
 * the physical folder of `start`, the nearest folder above holding `.git` (`groot`), taken
 * (`fast=1`) only when `.git` is a folder and `groot` lies below `$HOME`'s own level. Sets the
 * actor and the machine name as the shim reads them; header values must stay printable single
 * lines (`$cwd`, which the caller sets, included). Builtins only: a hook is hot. Leaves the
 * working directory at `start`'s physical folder, or runs `lost`. One source for the hooks' and
 * the MCP headers helper's fast paths; the collector derives the id (`projectIdFromGitConfig`)
 * from what {@linkcode projectCurlArgs} sends.
 */
function gitProjectLines(options: { start: string; lost: string }): string[] {
  return [
    "fast= groot= home=",
    `if cd -P ${options.start} 2>/dev/null; then`,
    "  here=$PWD",
    '  if [ -n "$HOME" ] && cd -P "$HOME" 2>/dev/null; then home=$PWD; fi',
    `  cd "$here" 2>/dev/null || ${options.lost}`,
    "  dir=$here",
    '  while [ -n "$dir" ]; do',
    '    if [ -e "$dir/.git" ]; then groot=$dir; break; fi',
    '    dir="${dir%/*}"',
    "  done",
    '  if [ -n "$groot" ] && [ -d "$groot/.git" ]; then',
    '    case "$home/" in "$groot"/*) ;; *) fast=1 ;; esac',
    "  fi",
    "fi",
    'actor=$USER; [ -n "$actor" ] || actor=$USERNAME; [ -n "$actor" ] || actor=$LOGNAME',
    '[ -n "$actor" ] || actor=unknown',
    "host=",
    "{ read -r host </proc/sys/kernel/hostname; } 2>/dev/null || host=$(uname -n 2>/dev/null)",
    'case "$cwd$groot$actor$host" in *[![:print:]]*) fast= ;; esac',
  ];
}

/**
 * curl's arguments for a call over the socket about the project {@linkcode gitProjectLines}
 * found: no proxy, the socket, the bearer header file, the folder, root and actor headers, and the
 * repository's config file (curl reads and URL-encodes it: `--url-query`, curl 7.87 or later;
 * an older curl fails the call and the caller falls back), so the collector derives the project
 * id from the remote exactly as `resolveProject` does.
 */
function projectCurlArgs(): string {
  return [
    // Never a proxy, whatever the proxy variables say (curl ignores them on a Unix socket
    // today; the token must not depend on that).
    `--noproxy '*' --unix-socket "$sock" -H @"$auth"`,
    `-H "${HOOK_HEADERS.cwd}: $cwd" -H "${HOOK_HEADERS.root}: $groot"`,
    `-H "${HOOK_HEADERS.actor}: $actor"`,
    `--url-query "${HOOK_GIT_CONFIG_QUERY}@$groot/.git/config"`,
  ].join(" ");
}

/** The launcher of the MCP server. */
export function mcpLauncherScript(options: McpCommandOptions): string {
  return [
    "#!/bin/sh",
    "# Written by `kiro-learn install`: runs kiro-learn's MCP server with its permissions.",
    ...denoEnvLines(),
    `exec ${mcpCommand(options).map(shellQuote).join(" ")} "$@"`,
    "",
  ].join("\n");
}

/**
 * The stdio MCP relay, for agents that start a stdio server per session and cannot hand the
 * token to an HTTP entry (Gemini CLI, Copilot CLI): a plain sh loop instead of a Deno process.
 * When curl is there, the collector's Unix socket exists and a `.git` folder decides the
 * project ({@linkcode gitProjectLines}, the hooks' own code), it asks the collector once for the
 * project's namespace (`ROUTES.mcpHeaders`, derived as a hook's project is), then posts each
 * JSON-RPC line it reads to the collector's MCP route (`ROUTES.mcp`, stateless, JSON answers)
 * over the socket, with the data dir's header file (the token is never in argv or the
 * environment), and prints each answer as one line; a notification's 202 prints nothing. A
 * request the collector does not answer gets a JSON-RPC error, so the agent never waits for it.
 * Anything else (no socket, no curl, no answer at the start, a project `.git` does not decide)
 * execs the Deno stdio server ({@linkcode mcpLauncherScript}'s command).
 */
export function mcpRelayLauncherScript(
  options: McpCommandOptions & { settings: Pick<Settings, "paths" | "collector"> },
): string {
  const { settings, ...command } = options;
  const q = shellQuote;
  const key = `"${MCP_NAMESPACE_HEADER}":"`;
  return [
    "#!/bin/sh",
    "# Written by `kiro-learn install`: kiro-learn's memory tools over stdio, relayed to the",
    "# collector's MCP route over its Unix socket (else its Deno MCP server). Rewritten by every",
    "# install; removed by uninstall.",
    ...denoEnvLines(),
    ...socketVariables(settings),
    "ns= alive=",
    'if [ "${KIRO_LEARN_INTERNAL:-0}" = 0 ] && [ -S "$sock" ] && [ -r "$auth" ] &&',
    "  command -v curl >/dev/null 2>&1; then",
    "  cwd=$PWD",
    ...gitProjectLines({ start: ".", lost: ":" }).map((l) => `  ${l}`),
    '  if [ -n "$fast" ]; then',
    "    # The project's namespace, derived by the collector from the remote as a hook's is. The",
    "    # answer also holds the token: only the namespace is kept.",
    ...projectHeadersLines(settings).map((l) => `    ${l}`),
    `    case "$headers" in *${q(key)}*) ns=\${headers#*${q(key)}}; ns=\${ns%%'"'*} ;; esac`,
    "    headers=",
    "    # A header value: one printable line, no JSON escape; else the Deno server decides.",
    '    case "$ns" in /actor/*/project/*/) ;; *) ns= ;; esac',
    String.raw`    case "$ns" in *\\*|*[![:print:]]*) ns= ;; esac`,
    "  fi",
    "fi",
    'if [ -n "$ns" ]; then',
    ...relayCacheLines(settings).map((l) => `  ${l}`),
    '  while IFS= read -r line || [ -n "$line" ]; do',
    '    case "$line" in *[![:space:]]*) ;; *) continue ;; esac',
    "    # A notification (no id) needs no answer, and the stateless route keeps nothing of it.",
    `    case "$line" in *'"id"'*) ;; *) continue ;; esac`,
    "    # The id as the request wrote it (the SDK writes it last): a number or a plain string.",
    `    id=\${line##*'"id"'}`,
    `    id=\${id#"\${id%%[![:space:]:]*}"}`,
    '    case "$id" in',
    `      '"'*) id=\${id#'"'}; id="\\"\${id%%'"'*}\\"" ;;`,
    "      *) id=${id%%[!0-9-]*} ;;",
    "    esac",
    String.raw`    case "$id" in ""|*\\*|*[![:print:]]*) id=null ;; esac`,
    "    # What the collector answers alike to every session comes from the cache, under this id.",
    "    slot= req=",
    '    if [ -n "$alive" ] && [ "$id" != null ]; then',
    '      case "$line" in',
    `        *'"method":"initialize"'*) slot=init ;;`,
    `        *'"method":"tools/list"'*) slot=list ;;`,
    "      esac",
    `      case "$line" in *'"id":'"$id}") req=\${line%'"id"'*} ;; *) slot= ;; esac`,
    "    fi",
    '    case "$slot:$req" in',
    `      :*) ;;`,
    `      "init:$init_req") printf '%s"id":%s}\\n' "$init_ans" "$id"; continue ;;`,
    `      "list:$list_req") printf '%s"id":%s}\\n' "$list_ans" "$id"; continue ;;`,
    "    esac",
    `    out=$(printf '%s' "$line" | curl --silent --max-time ${MCP_RELAY_BUDGET_S} \\`,
    `      --noproxy '*' --unix-socket "$sock" -H @"$auth" -H "${MCP_NAMESPACE_HEADER}: $ns" \\`,
    "      -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \\",
    `      --data-binary @- -w '/%{http_code}' ${q(socketUrl(settings, ROUTES.mcp))} 2>/dev/null)`,
    "    code=${out##*/}",
    "    out=${out%/*}",
    "    # The route's own answers, errors included, are JSON-RPC: passed on as they are.",
    '    case "$out" in',
    String.raw`      '{'*'"jsonrpc"'*'}'|'['*'"jsonrpc"'*']')`,
    `        printf '%s\\n' "$out"`,
    "        # A result under this very id: kept for the sessions to come.",
    '        if [ -n "$slot" ]; then',
    `          case "$out" in '{"result":'*'"id":'"$id}") remember ;; esac`,
    "        fi",
    "        continue ;;",
    "    esac",
    "    # Nothing to answer: a notification (202), or a request without an id.",
    '    case "$code" in 202) continue ;; esac',
    `    printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"%s"}}\\n' "$id" \\`,
    `      "kiro-learn's collector did not answer this request (HTTP $code): run kiro-learn doctor"`,
    "  done",
    "  exit 0",
    "fi",
    `exec ${mcpCommand(command).map(shellQuote).join(" ")} "$@"`,
    "",
  ].join("\n");
}

/**
 * Sets `headers` to the collector's answer of `ROUTES.mcpHeaders` (the token and the project's
 * namespace) for the project {@linkcode gitProjectLines} found (`fast` set): the last answer from
 * the socket (`paths.mcpHeadersCache`, 0600) while the same collector process lives
 * ({@linkcode collectorIdentityLines}, which sets `alive`), no hook left the `unanswered` marker
 * and the repository's config is not newer than it; else one curl over the socket, whose answer
 * is kept. Empty when nothing answered. One source for the headers helper and the relay.
 */
function projectHeadersLines(settings: Pick<Settings, "paths" | "collector">): string[] {
  const q = shellQuote;
  const cache = q(settings.paths.mcpHeadersCache);
  return [
    ...collectorIdentityLines(settings),
    'headers= key="$alive $actor $groot"',
    `if [ -n "$alive" ] && [ ! -e ${q(settings.paths.unanswered)} ] && [ -f ${cache} ] &&`,
    `  [ ! "$groot/.git/config" -nt ${cache} ]; then`,
    `  { IFS= read -r seen; IFS= read -r line; } <${cache} 2>/dev/null`,
    '  if [ "$seen" = "$key" ]; then',
    "    case \"$line\" in '{'*'}') headers=$line ;; esac",
    "  fi",
    "  line=",
    "fi",
    'if [ -z "$headers" ]; then',
    `  out=$(curl --silent --fail --max-time ${MCP_HEADERS_FAST_PATH_BUDGET_S} \\`,
    `    ${projectCurlArgs()} \\`,
    `    --data-binary '' ${q(socketUrl(settings, ROUTES.mcpHeaders))} 2>/dev/null)`,
    "  case \"$out\" in '{'*'}')",
    "    headers=$out",
    "    # It holds the token: this user's only.",
    `    [ -n "$alive" ] && { umask 077; printf '%s\\n%s\\n' "$key" "$out" >${cache}; } 2>/dev/null ;;`,
    "  esac",
    "  out=",
    "fi",
  ];
}

/**
 * The relay's cache of what the collector answers alike to every session (`initialize`, whose
 * answer depends only on the request, and `tools/list`: the same tools for every project),
 * kept in `paths.mcpRelayCache` while the same collector process lives (`alive`, keyed on its pid
 * and start time: a restarted or upgraded collector is asked again). Lines: that key, then each
 * slot's request and answer up to their `"id"`. Sets the slots' variables and defines
 * `remember`, which keeps the current request's answer (`slot`, `req`, `out`) in its slot and
 * rewrites the file (a temporary file renamed over it: a relay reading it at the same time sees
 * the old one or the new one).
 */
function relayCacheLines(settings: Pick<Settings, "paths">): string[] {
  const cache = shellQuote(settings.paths.mcpRelayCache);
  return [
    "init_req= init_ans= list_req= list_ans=",
    `if [ -n "$alive" ] && [ -f ${cache} ]; then`,
    "  { IFS= read -r seen; IFS= read -r init_req; IFS= read -r init_ans; IFS= read -r list_req",
    `    IFS= read -r list_ans; } <${cache} 2>/dev/null`,
    '  [ "$seen" = "$alive" ] || { init_req= init_ans= list_req= list_ans=; }',
    "fi",
    "remember() {",
    `  ans=\${out%'"id"'*}`,
    '  case "$slot" in',
    "    init) init_req=$req init_ans=$ans ;;",
    "    list) list_req=$req list_ans=$ans ;;",
    "  esac",
    `  tmp=${cache}.$$`,
    `  { umask 077; printf '%s\\n' "$alive" "$init_req" "$init_ans" "$list_req" "$list_ans" >"$tmp" &&`,
    `    mv -f "$tmp" ${cache}; } 2>/dev/null || rm -f "$tmp" 2>/dev/null`,
    "}",
  ];
}

/** The argument by which the headers helper's launcher hands over the agent's folder. */
export const AGENT_CWD_ARG = "--agent-cwd=";

// Finds the agent's working directory in plain sh: Deno refuses to read another process's /proc
// entries without --allow-all, while sh reads them freely. Claude Code runs the helper in its
// config folder through `sh -c`, so the agent is the nearest ancestor whose folder differs.
// Builtins only, no `$(...)`: the helper is on the path of every session's MCP connection, which
// Claude Code waits for, and each subshell is a fork. `cd -P` sets `$PWD` to the physical folder;
// the script goes back to the folder it was started in before anything else.
const FIND_AGENT_CWD = [
  "agent_cwd= here=",
  "cd -P . 2>/dev/null && here=$PWD",
  "pid=$PPID",
  "for _ in 1 2 3 4; do",
  '  [ "$pid" -gt 1 ] 2>/dev/null || break',
  '  cd -P "/proc/$pid/cwd" 2>/dev/null || break',
  '  if [ "$PWD" != "$here" ]; then agent_cwd=$PWD; break; fi',
  '  read -r stat < "/proc/$pid/stat" || break',
  "  # The fields after the command name (in parentheses): state, then the parent's pid.",
  "  set -- ${stat##*) }",
  "  pid=$2",
  "done",
  '[ -n "$here" ] && cd "$here" 2>/dev/null',
];

/**
 * The launcher of Claude Code's MCP headers helper: finds the agent's folder, then, given the
 * settings, takes the fast path: when curl is there, the collector's Unix socket exists and a
 * `.git` folder decides the agent's project ({@linkcode gitProjectLines}, the hooks' own code),
 * it asks the collector over the socket for the headers (`ROUTES.mcpHeaders`, with the hooks'
 * project headers and git config) and prints its answer. The socket lives in the 0700 data dir,
 * so whatever answers on it is this user's collector: no hello proof is needed, and the token is
 * printed only when the answer came that way. That answer is kept (`paths.mcpHeadersCache`,
 * 0600) and printed again without curl while the same collector process runs
 * ({@linkcode collectorIdentityLines}), no hook left the `unanswered` marker, and the
 * repository's config is not newer than it. Anything else (no socket, no answer within
 * {@linkcode MCP_HEADERS_FAST_PATH_BUDGET_S}, a 4xx, a project `.git` does not decide) execs the
 * helper with the agent's folder ({@linkcode AGENT_CWD_ARG}), which proves the collector on its
 * TCP port before it prints the token.
 */
export function mcpHeadersLauncherScript(
  argv: readonly string[],
  options: { settings?: Pick<Settings, "paths" | "collector"> } = {},
): string {
  const settings = options.settings;
  const fast = settings === undefined ? [] : [
    ...socketVariables(settings),
    'if [ -n "$agent_cwd" ] && [ "${KIRO_LEARN_INTERNAL:-0}" = 0 ] && [ -S "$sock" ] &&',
    '  [ -r "$auth" ] && command -v curl >/dev/null 2>&1; then',
    "  launched=$PWD",
    "  cwd=$agent_cwd",
    // Every path below is absolute: a folder left behind changes nothing.
    ...gitProjectLines({ start: '"$cwd"', lost: ":" }).map((l) => `  ${l}`),
    '  if [ -n "$fast" ]; then',
    ...projectHeadersLines(settings).map((l) => `    ${l}`),
    `    if [ -n "$headers" ]; then printf '%s\\n' "$headers"; exit 0; fi`,
    "  fi",
    '  cd "$launched" 2>/dev/null',
    "fi",
  ];
  return [
    "#!/bin/sh",
    "# Written by `kiro-learn install`: prints the headers (token, project) Claude Code sends to",
    "# the collector's MCP route. Rewritten by every install; removed by uninstall.",
    ...denoEnvLines(),
    ...FIND_AGENT_CWD,
    ...fast,
    `exec ${argv.map(shellQuote).join(" ")} "${AGENT_CWD_ARG}$agent_cwd"`,
    "",
  ].join("\n");
}

/**
 * Sets `alive` to the running collector's pid and start time (from its pid file and
 * `/proc/<pid>/stat`, builtins only), or to nothing when no collector process is running or it
 * is stopped (a stopped or dead collector's answer is never reused). A new collector process
 * has another pid or start time, so nothing cached under the last one is trusted.
 */
function collectorIdentityLines(settings: Pick<Settings, "paths">): string[] {
  return [
    "alive= cpid= cstat=",
    `{ read -r cpid <${shellQuote(settings.paths.pid)}; } 2>/dev/null`,
    'case "$cpid" in',
    "  ''|*[!0-9]*) ;;",
    '  *) if { read -r cstat <"/proc/$cpid/stat"; } 2>/dev/null; then',
    "    # After the command name: the state (field 3), ..., the start time (field 22).",
    "    set -- ${cstat##*) }",
    '    case "$1" in',
    "      [TtZX]) ;;",
    '      *) shift 19; alive="$cpid-$1" ;;',
    "    esac",
    "  fi ;;",
    "esac",
  ];
}

/** Every launcher of an installation: where it goes and what it holds. */
export function launcherFiles(
  settings: Pick<Settings, "dataDir" | "paths" | "collector">,
  options: { denoPath?: string; home?: string } = {},
): { path: string; content: string }[] {
  const surfaces = Object.keys(SHIM_ENTRIES) as ShimSurface[];
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
      path: launcherPath(settings.paths.bin, "mcp-relay"),
      content: mcpRelayLauncherScript({
        settings,
        host: settings.collector.host,
        port: settings.collector.port,
        execPath: options.denoPath,
      }),
    },
    {
      path: launcherPath(settings.paths.bin, "mcp-headers"),
      content: mcpHeadersLauncherScript(
        mcpHeadersCommand(settings, { denoPath: options.denoPath, home: options.home }),
        { settings },
      ),
    },
  ];
}

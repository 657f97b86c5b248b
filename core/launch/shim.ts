/**
 * How a shim is launched, with exactly the permissions it needs:
 *
 * | flag | value | why |
 * |---|---|---|
 * | `--allow-net` | `<collector.host>:<collector.port>` | the one place events go |
 * | `--allow-read` | the data dir, `$HOME`, extra project roots | settings.json, token and spool size (data dir); project detection stats the cwd and its ancestors for `.git` and the project markers, reads worktree `.git` files, `commondir` and the repository's git `config` (its remote decides the project id), and realpaths `$HOME` (home, plus any root outside it the installer names; the hook launcher adds the hook's repository and the git dir its `.git` file points to) |
 * | `--allow-write` | `<dataDir>/spool` | the spool, nothing else |
 * | `--allow-env` | {@linkcode SHIM_ENV_VARS} | only what it reads |
 * | `--allow-sys` | `hostname` | `source.client_id` |
 * | `--allow-run` | `<dataDir>/bin/start-collector` | start a collector that is down (that one script, see `starter.ts`) |
 *
 * A hook that fires in a directory outside every read root still works: the project then
 * resolves to the cwd itself (never to a shared pool), as core's `resolveProject` does for any
 * unreadable path. `/proc` is not granted: Deno only opens it under `--allow-all` (see
 * `shims/session.ts` for what that means for session ids).
 *
 * Shims import {@linkcode SHIM_ENV_VARS} from here at run time, so this module stays light
 * (no npm or node modules).
 *
 * @module
 */
import { INTERNAL_ENV_VAR } from "../api/wire.ts";
import { isAbsolute, normalize } from "../path.ts";
import type { Settings } from "../settings/mod.ts";
import { ENV_OVERRIDES } from "../settings/mod.ts";
import {
  LOCAL_MODULES_ONLY,
  SHIM_BIN_DIR,
  SHIM_ENTRIES,
  shimEntryPath,
  type ShimSurface,
  WORKSPACE_CONFIG,
} from "./layout.ts";

/** Every environment variable a shim may read (its `--allow-env` list), and why. */
export const SHIM_ENV_VARS: readonly string[] = Object.freeze([
  // The data dir (settings, token, spool) and project detection's home directory.
  "KIRO_LEARN_HOME",
  "HOME",
  "USERPROFILE",
  // settings.json overrides (host, port, log level).
  ...Object.keys(ENV_OVERRIDES),
  // The actor segment of the namespace.
  "USER",
  "USERNAME",
  "LOGNAME",
  // Set on the memory system's own agent children: the shim must not observe them.
  INTERNAL_ENV_VAR,
  // Session id set by newer Kiro builds.
  "KIRO_SESSION_ID",
  // Kiro IDE 0.x payload (and the first prompt on Kiro CLI agentSpawn).
  "USER_PROMPT",
]);

/**
 * The argument a Kiro hook command appends, unquoted, after the quoted shim argv:
 * `<quoted argv> --agent-pid=$PPID || true`. The hook's shell expands `$PPID` to its own
 * parent, the agent, which gives every hook of one agent process the same session id.
 */
export const AGENT_PID_ARG = "--agent-pid=$PPID";

/**
 * Flags of every `deno run` of a shim entry besides its permissions:
 * - `--config <repo>/deno.json`: the workspace import map (`@kiro-learn/core/...`), whatever
 *   folder (and whatever `deno.json` of the user's project) the hook fires in;
 * - {@linkcode LOCAL_MODULES_ONLY} (`--no-remote --cached-only`): a hook never downloads or
 *   re-resolves anything at run time, and no dynamic `import()` reaches the network. The shim
 *   graph is local files only (no npm, jsr, node: or remote module: a boundary test enforces
 *   it), so this costs nothing; it turns a regression into a loud failure instead of a
 *   network fetch inside the agent's hook.
 *
 * Measured (whole process, empty stdin, 2-core machine): the lock stays on (`--no-lock` was
 * about 30 ms slower: without the lock Deno resolves the import map's npm entries), and
 * dropping `--config` (Deno then finds the workspace from the entry's folder), `--no-npm` or
 * `--no-remote` changed nothing measurable.
 */
export const SHIM_RUN_FLAGS: readonly string[] = Object.freeze([
  "--config",
  WORKSPACE_CONFIG,
  ...LOCAL_MODULES_ONLY,
]);

/** A shim's permissions. */
export interface ShimPermissions {
  /** `host:port` of the collector. */
  net: string;
  /** Readable paths. */
  read: string[];
  /** Writable paths. */
  write: string[];
  /** Readable environment variables. */
  env: readonly string[];
  /** `Deno.*` system info it may query. */
  sys: string[];
  /** What it may run: the collector's starter, nothing else. */
  run: string[];
}

/** Options for {@linkcode shimPermissions}. */
export interface ShimPermissionOptions {
  /** Project roots outside `$HOME` that hooks fire in (per-project installs pass theirs). */
  projectRoots?: readonly string[];
  /** Home directory (defaults to `$HOME`). */
  home?: string;
}

/** Computes a shim's permissions from the settings it will run with. */
export function shimPermissions(
  settings: Pick<Settings, "dataDir" | "paths" | "collector">,
  options: ShimPermissionOptions = {},
): ShimPermissions {
  for (const path of [settings.dataDir, settings.paths.spool, settings.paths.starter]) {
    if (path.includes(",")) {
      throw new Error(
        `the data dir path ${path} contains a comma, which Deno permission lists cannot hold; set KIRO_LEARN_HOME to another folder`,
      );
    }
  }
  const home = options.home ?? homeDir();
  const read = [settings.dataDir];
  const roots: string[] = [];
  const homeRoot = readableRoot(home);
  // Deno checks a path as it is spelled, and agents name files under $HOME as they spell it: a
  // symlinked $HOME is granted under that spelling too, once its target proved not to be `/`.
  if (homeRoot !== null) roots.push(homeRoot, readableSpelling(home!) ?? homeRoot);
  for (const given of options.projectRoots ?? []) {
    const root = readableRoot(given);
    if (root !== null) roots.push(root);
  }
  for (const root of roots) if (!read.includes(root)) read.push(root);
  const host = settings.collector.host.includes(":")
    ? `[${settings.collector.host}]`
    : settings.collector.host;
  return {
    net: `${host}:${settings.collector.port}`,
    read,
    write: [settings.paths.spool],
    env: SHIM_ENV_VARS,
    sys: ["hostname"],
    run: [settings.paths.starter],
  };
}

/**
 * `path` as a shim may be granted to read it, or null: canonical (symlinks, `.`, `..` and `//`
 * resolved, lexically when it cannot be looked at), absolute, never `/` (the whole disk: `//`,
 * `/.` and `/etc/..` are `/` too) and never with a comma (it would split the flag's list).
 */
export function readableRoot(path: string | undefined): string | null {
  if (!path || !isAbsolute(path)) return null;
  try {
    return readableSpelling(Deno.realPathSync(path));
  } catch {
    return readableSpelling(path);
  }
}

/** `path` normalized, without a trailing separator; null for `/` or a path with a comma. */
function readableSpelling(path: string): string | null {
  const spelled = normalize(path).replace(/(.)\/+$/, "$1");
  return spelled === "/" || spelled.includes(",") ? null : spelled;
}

/** Renders permissions as Deno flags (never `-A`, never a bare `--allow-*`). */
export function shimPermissionFlags(permissions: ShimPermissions): string[] {
  return [
    "--no-prompt",
    `--allow-net=${permissions.net}`,
    `--allow-read=${permissions.read.join(",")}`,
    `--allow-write=${permissions.write.join(",")}`,
    `--allow-env=${permissions.env.join(",")}`,
    `--allow-sys=${permissions.sys.join(",")}`,
    `--allow-run=${permissions.run.join(",")}`,
  ];
}

/** Options for {@linkcode shimCommand}. */
export interface ShimCommandOptions extends ShimPermissionOptions {
  /** Settings of the installation (host, port, data dir). */
  settings: Pick<Settings, "dataDir" | "paths" | "collector">;
  /** Arguments for the shim itself (the hook type for `kiro-ide`, `--surface=...`). */
  args?: readonly string[];
  /** Use `shims/bin/<name>` when it exists (default true). */
  preferCompiled?: boolean;
  /** Where compiled shims are looked for (default {@linkcode SHIM_BIN_DIR}). */
  binDir?: string;
  /** The deno executable (default `Deno.execPath()`). */
  denoPath?: string;
}

/**
 * The argv that runs a shim: the compiled binary (permissions baked in at compile time) when
 * present, else `deno run` {@linkcode SHIM_RUN_FLAGS} with {@linkcode shimPermissions}.
 *
 * Session ids for Kiro hooks (which carry none): the installer writes a hook as
 * `<quoted argv> || true`, so the shim's parent is a throw-away shell, different for every
 * hook firing. For `kiro-cli` and `kiro-ide` hooks, append {@linkcode AGENT_PID_ARG}
 * (`--agent-pid=$PPID`) *unquoted* after the quoted argv — the hook's shell expands `$PPID`
 * to the agent's pid, and every hook of one agent process gets the same session id. (Quoting
 * it, or passing it inside `args`, would hand the shim the literal text `$PPID`.) Claude Code
 * payloads carry their own `session_id` and need nothing. {@linkcode hookCommandLine} is the
 * other way: `exec` makes the shim replace the shell, so its parent is the agent itself.
 */
export function shimCommand(surface: ShimSurface, options: ShimCommandOptions): string[] {
  const args = [...(options.args ?? [])];
  if (options.preferCompiled ?? true) {
    const bin = `${options.binDir ?? SHIM_BIN_DIR}/${SHIM_ENTRIES[surface].bin}`.replace(
      /\/+/g,
      "/",
    );
    if (executableAt(bin) === true) return [bin, ...args];
  }
  return [
    options.denoPath ?? Deno.execPath(),
    "run",
    ...SHIM_RUN_FLAGS,
    ...shimPermissionFlags(shimPermissions(options.settings, options)),
    shimEntryPath(surface),
    ...args,
  ];
}

/**
 * The argv as a POSIX shell command for a hook config, prefixed with `exec` so the shim
 * replaces the hook's shell: its parent is then the agent process, which is what per-process
 * session ids key on.
 */
export function hookCommandLine(argv: readonly string[]): string {
  return "exec " + argv.map(shellQuote).join(" ");
}

/** Quotes one argument for a POSIX shell (plain words stay as they are). */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_\/.,:=@%+-]+$/.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

function homeDir(): string | undefined {
  try {
    return Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
  } catch {
    return undefined;
  }
}

/**
 * Finds a command on PATH the way the shell would, so `--allow-run` can name the exact binary.
 * Returns null when it is not installed.
 */
export function resolveCommand(command: string, env: { PATH?: string } = {}): string | null {
  if (command.includes("/")) return executableAt(command) === true ? command : null;
  return searchPath(command, env.PATH ?? Deno.env.get("PATH") ?? "").found;
}

/**
 * Whether `command` is an executable here: the file at a path (relative to `cwd`), or a name on
 * PATH. `undefined` when this process may not look (a narrow `--allow-read` or `--allow-env`, as
 * the collector has): the caller then decides from what it was granted.
 */
export function commandPresence(
  command: string,
  options: { cwd?: string } = {},
): boolean | undefined {
  if (command.includes("/")) {
    const path = command.startsWith("/") || options.cwd === undefined
      ? command
      : `${options.cwd.replace(/\/$/, "")}/${command}`;
    return executableAt(path);
  }
  let path: string | undefined;
  try {
    path = Deno.env.get("PATH");
  } catch {
    return undefined;
  }
  const { found, unknown } = searchPath(command, path ?? "");
  if (found !== null) return true;
  return unknown ? undefined : false;
}

// The one PATH walk: the first executable named `command`, and whether a folder could not be
// looked at (so "absent" is not certain).
function searchPath(command: string, path: string): { found: string | null; unknown: boolean } {
  let unknown = false;
  for (const dir of path.split(":")) {
    if (dir === "") continue;
    const candidate = `${dir}/${command}`;
    const here = executableAt(candidate);
    if (here === true) return { found: candidate, unknown };
    if (here === undefined) unknown = true;
  }
  return { found: null, unknown };
}

/** True/false when `path` is (not) an executable file; undefined when this process may not look. */
function executableAt(path: string): boolean | undefined {
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return false;
    }
    return undefined;
  }
}

/**
 * How a shim is launched, with exactly the permissions it needs:
 *
 * | flag | value | why |
 * |---|---|---|
 * | `--allow-net` | `<collector.host>:<collector.port>` | the one place events go |
 * | `--allow-read` | the data dir, `$HOME`, extra project roots | settings.json, token and spool size (data dir); project detection stats the cwd and its ancestors for `.git` and the project markers, reads worktree `.git` files and `commondir`, and realpaths `$HOME` (home, plus any root outside it the installer names) |
 * | `--allow-write` | `<dataDir>/spool` | the spool, nothing else |
 * | `--allow-env` | {@linkcode SHIM_ENV_VARS} | only what it reads |
 * | `--allow-sys` | `hostname` | `source.client_id` |
 *
 * A hook that fires in a directory outside every read root still works: the project then
 * resolves to the cwd itself (never to a shared pool), as core's `resolveProject` does for any
 * unreadable path. `/proc` is not granted: Deno only opens it under `--allow-all` (see
 * `session.ts` for what that means for session ids).
 *
 * @module
 */
import type { Settings } from "@kiro-learn/core/settings";
import { SHIM_ENV_VARS } from "./env.ts";

/** The agents a shim entry serves. `kiro-cli` also serves Kiro IDE 1.x `.kiro/hooks/*.json`. */
export type ShimSurface = "kiro-cli" | "kiro-ide" | "claude-code";

/** Entry module and compiled binary name per surface. */
export const SHIM_ENTRIES: Readonly<Record<ShimSurface, { entry: string; bin: string }>> = {
  "kiro-cli": { entry: "kiro_cli.ts", bin: "kiro_cli" },
  "kiro-ide": { entry: "kiro_ide.ts", bin: "kiro_ide" },
  "claude-code": { entry: "claude_code.ts", bin: "claude_code" },
};

/** The workspace config every `deno run` / `deno compile` of a shim uses (import map). */
export const WORKSPACE_CONFIG: string = new URL("../deno.json", import.meta.url).pathname;

/** Where compiled shims live. */
export const SHIM_BIN_DIR: string = new URL("./bin/", import.meta.url).pathname;

/** Absolute path of a surface's entry module. */
export function shimEntryPath(surface: ShimSurface): string {
  return new URL(`./${SHIM_ENTRIES[surface].entry}`, import.meta.url).pathname;
}

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
  for (const path of [settings.dataDir, settings.paths.spool]) {
    if (path.includes(",")) {
      throw new Error(
        `the data dir path ${path} contains a comma, which Deno permission lists cannot hold; set KIRO_LEARN_HOME to another folder`,
      );
    }
  }
  const home = options.home ?? homeDir();
  const read = [settings.dataDir];
  for (const root of [home, ...(options.projectRoots ?? [])]) {
    // "/" would grant the whole disk, and a comma would split the flag's list.
    if (root && root !== "/" && !root.includes(",") && !read.includes(root)) read.push(root);
  }
  const host = settings.collector.host.includes(":")
    ? `[${settings.collector.host}]`
    : settings.collector.host;
  return {
    net: `${host}:${settings.collector.port}`,
    read,
    write: [settings.paths.spool],
    env: SHIM_ENV_VARS,
    sys: ["hostname"],
  };
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
 * present, else `deno run` of the entry with {@linkcode shimPermissions}.
 */
export function shimCommand(surface: ShimSurface, options: ShimCommandOptions): string[] {
  const args = [...(options.args ?? [])];
  if (options.preferCompiled ?? true) {
    const bin = `${options.binDir ?? SHIM_BIN_DIR}/${SHIM_ENTRIES[surface].bin}`.replace(
      /\/+/g,
      "/",
    );
    if (isExecutable(bin)) return [bin, ...args];
  }
  return [
    options.denoPath ?? Deno.execPath(),
    "run",
    "--config",
    WORKSPACE_CONFIG,
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

function shellQuote(arg: string): string {
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

function isExecutable(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

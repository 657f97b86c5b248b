/**
 * The data dir and the files in it, plus the permission discipline for them: the dir is
 * 0700 and every file 0600, because it holds the API token and captured session text.
 *
 * @module
 */

import { envGet, type EnvLike } from "../env.ts";
import { writeFileAtomic } from "../fs/mod.ts";
import { join, resolve } from "../path.ts";
import { SettingsError } from "./errors.ts";

/** Absolute paths of everything kept in the data dir. */
export interface DataPaths {
  /** `settings.json`. */
  settings: string;
  /** `token`: the local API bearer token. */
  token: string;
  /** `kiro-learn.db`: SQLite database. */
  db: string;
  /** `spool/`: events a shim could not deliver. */
  spool: string;
  /** `logs/`. */
  logs: string;
  /** `models/`: embedding model files. */
  models: string;
  /** `collector.pid`. */
  pid: string;
  /**
   * `collector.sock`: the collector's Unix socket (the hooks' fast path). The 0700 data dir is
   * what makes it ours: no other user can create or reach it.
   */
  socket: string;
  /**
   * `collector-tcp.sock`: where the collector's HTTP server answers what its TCP port's guard
   * relays (0600 in the 0700 data dir, like `socket`; separate from it, so that nothing done to
   * the hooks' socket touches the port).
   */
  tcpRelaySocket: string;
  /** `hook-auth`: the `Authorization` header line the hooks' fast path sends (0600). */
  hookAuth: string;
  /** `collector.unanswered`: present after a hook's fast path got no answer in time. */
  unanswered: string;
  /**
   * `mcp-headers.cache`: the MCP headers helper's last answer from the socket (it holds the
   * token, 0600), reused while the same collector process lives.
   */
  mcpHeadersCache: string;
  /**
   * `mcp-relay.cache`: what the collector's MCP route answers alike to every session
   * (`initialize`, `tools/list`), kept by the stdio relay while the same collector process lives.
   */
  mcpRelayCache: string;
  /**
   * `install-manifest.json`: what `install` created, which `uninstall` removes (written by the
   * CLI only: the daemon may not write it).
   */
  installManifest: string;
  /** `bin/`: the scripts `install` writes (the hooks' launchers, the collector's starter). */
  bin: string;
  /**
   * `bin/start-collector`: the script a hook runs to start a collector that is down (written
   * by `kiro-learn install`; hooks may run this file and nothing else).
   */
  starter: string;
  /**
   * `team-password`: the password of the team database's role (0600; written by
   * `kiro-learn team join`), so it is never in settings.json, a command line or a log.
   */
  teamPassword: string;
  /**
   * `viewer-links/` (0700): the pages `kiro-learn open` hands the browser (0600 each, one
   * one-time login code each), so the code is never in a process's arguments.
   */
  viewerLinks: string;
  /**
   * `agent-workdir/`: the folder the collector's LLM agents (compressor, reconciler, compactor)
   * run in (0700, never a git repository). Not a project: an agent that reads its working tree,
   * sends the model its git status or files its transcripts under it (Claude Code does all
   * three) finds nothing of any project there.
   */
  agentWorkdir: string;
}

/** Name of the settings file inside the data dir. */
export const SETTINGS_FILE = "settings.json";

/** Name of the install record inside the data dir. */
export const INSTALL_MANIFEST_FILE = "install-manifest.json";

const IS_WINDOWS = Deno.build.os === "windows";

/**
 * The data dir: `KIRO_LEARN_HOME` if set, else `<HOME>/.kiro-learn`. Relative values are
 * resolved against the cwd so every process agrees on one absolute path.
 */
export function dataDir(env?: EnvLike): string {
  const override = envGet(env, "KIRO_LEARN_HOME");
  if (override) return resolve(override);
  const home = envGet(env, "HOME") || envGet(env, "USERPROFILE");
  if (!home) {
    throw new SettingsError(
      "kiro-learn cannot find its data dir: neither KIRO_LEARN_HOME nor HOME is set. " +
        "Set KIRO_LEARN_HOME to a folder kiro-learn may use (for example ~/.kiro-learn).",
    );
  }
  return join(resolve(home), ".kiro-learn");
}

/** The derived paths of every file kept in `dir`. */
export function dataPaths(dir: string): DataPaths {
  return {
    settings: join(dir, SETTINGS_FILE),
    token: join(dir, "token"),
    db: join(dir, "kiro-learn.db"),
    spool: join(dir, "spool"),
    logs: join(dir, "logs"),
    models: join(dir, "models"),
    pid: join(dir, "collector.pid"),
    socket: join(dir, "collector.sock"),
    tcpRelaySocket: join(dir, "collector-tcp.sock"),
    hookAuth: join(dir, "hook-auth"),
    unanswered: join(dir, "collector.unanswered"),
    mcpHeadersCache: join(dir, "mcp-headers.cache"),
    mcpRelayCache: join(dir, "mcp-relay.cache"),
    installManifest: join(dir, INSTALL_MANIFEST_FILE),
    bin: join(dir, "bin"),
    starter: join(dir, "bin", "start-collector"),
    teamPassword: join(dir, "team-password"),
    viewerLinks: join(dir, "viewer-links"),
    agentWorkdir: join(dir, "agent-workdir"),
  };
}

/**
 * Create `dir` (and missing parents) with mode 0700, and tighten an existing dir to 0700:
 * kiro-learn shipped 0755 dirs, and umask can widen nothing but may leave old bits in place.
 */
export function ensureDataDir(dir: string): void {
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const info = Deno.statSync(dir);
  if (!info.isDirectory) {
    throw new SettingsError(
      `${dir} exists but is not a folder. Move it away or set KIRO_LEARN_HOME.`,
    );
  }
  if (!IS_WINDOWS && info.mode !== null && (info.mode & 0o777) !== 0o700) {
    Deno.chmodSync(dir, 0o700);
  }
}

/** Options for {@linkcode writeSecureFile}. */
export interface WriteSecureFileOptions {
  /** Fail with `Deno.errors.AlreadyExists` instead of replacing an existing file. */
  createNew?: boolean;
}

/**
 * Write `data` to `path` with mode 0600, atomically: readers see the old file or the whole
 * new one, never a torn write (a crash mid-write would otherwise corrupt settings or token).
 * Returns false when `createNew` is set and the file already exists.
 */
export function writeSecureFile(
  path: string,
  data: string | Uint8Array,
  options: WriteSecureFileOptions = {},
): boolean {
  return writeFileAtomic(path, data, { mode: 0o600, createNew: options.createNew });
}

export { envGet, type EnvLike };

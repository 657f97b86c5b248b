/**
 * The collector's Deno permissions: the design's promise, computed in one place.
 *
 * `serve` and `start` launch the daemon with exactly these flags, docs/configuration.md lists them, and a
 * test launches the real daemon with them and checks what it cannot do.
 *
 * @module
 */
import {
  commandPresence,
  DENO_ENV,
  LOCAL_MODULES_ONLY,
  resolveCommand,
} from "@kiro-learn/core/launch";

export { resolveCommand };
import { ENV_OVERRIDES, postgresHostPort, type Settings } from "@kiro-learn/core/settings";
import { dirname } from "@kiro-learn/core/path";
import {
  teamWorkerCodePaths,
  termSpaceWorkerCodePaths,
  USE_LITE_WORKER,
  useLiteReadPaths,
  WORKSPACE_CONFIG,
} from "./model_paths.ts";

/** Environment variables the collector reads, and no others. */
export const COLLECTOR_ENV_VARS: readonly string[] = [
  "KIRO_LEARN_HOME",
  ...Object.keys(ENV_OVERRIDES),
  "HOME",
  "USERPROFILE",
];

/**
 * The environment variables the team database client (`postgres`) reads whatever options it is
 * given; granted only when a team is configured.
 */
export const TEAM_CLIENT_ENV: readonly string[] = ["PGAPPNAME", "PGTARGETSESSIONATTRS"];

/** The daemon's entry module. */
export const DAEMON_ENTRY: string = new URL("../main.ts", import.meta.url).pathname;

/** Read-only assets the daemon serves or loads (the viewer). */
export const COLLECTOR_ASSET_DIRS: readonly string[] = [
  new URL("../viewer/static", import.meta.url).pathname,
];

/**
 * What the embedding backend adds to the daemon's permissions, and why:
 * - `use-lite`: read of the Worker's entry module (to start it) and of the two packages'
 *   `dist` folders (a Worker can only be granted what its parent holds); the Worker itself is
 *   limited to those two folders; and `setPriority` (`--allow-sys=setPriority`, no other system
 *   call), which the Workers use to lower their own threads to nice 10 (background work).
 * - `onnx`: run of the `deno` binary, for the onnx child process, which alone holds the FFI
 *   permission (path-scoped to onnxruntime-node's native folder) and read of the model folder.
 *   The daemon never gets `--allow-ffi`.
 * - `off`: nothing.
 */
export function embeddingPermissions(
  backend: Settings["embedding"]["backend"],
): { read: string[]; run: string[]; sys: string[] } {
  if (backend === "use-lite") {
    // `setPriority`: the model's Workers lower their own threads (background work).
    return { read: [USE_LITE_WORKER, ...useLiteReadPaths()], run: [], sys: ["setPriority"] };
  }
  if (backend === "onnx") return { read: [], run: [Deno.execPath()], sys: [] };
  return { read: [], run: [], sys: [] };
}

/** What the daemon is allowed to do. */
export interface CollectorPermissions {
  /**
   * `host:port` it listens on, its Unix sockets in the data dir (`unix:<path>`: the hooks' fast
   * path, and the one its port's connection guard relays to), and the team database's `host:port` when `team.url` is set (settings.json, which the
   * daemon cannot write); nothing else on the network.
   */
  net: string;
  /** Paths it may read. */
  read: string[];
  /** Paths it may write. */
  write: string[];
  /**
   * Paths inside `write` it may not write (`--deny-write`, which wins over `--allow-write`):
   * the files that decide what the next start grants it, `settings.json` (agent commands,
   * embedding backend, port) and `bin/` (the starter hooks run). The daemon reads them; only
   * the user changes them.
   */
  denyWrite: string[];
  /** Commands it may run (the configured ACP agents), resolved; empty when none is installed. */
  run: string[];
  /** Environment variables it may read (its own, and `extraction.agentEnv`). */
  env: readonly string[];
  /**
   * System calls it may make: `setPriority` with the use-lite backend, so the model's Workers
   * can lower their own threads; nothing else (no host, user or network facts).
   */
  sys: string[];
}

/**
 * The files in the data dir the daemon must not write: what decides its permissions at its next
 * start (`settings.json`, the `bin/` folder holding the starter and the hooks' launchers), what
 * the user's `uninstall` acts on (`install-manifest.json`: a record naming any file would have
 * it deleted), and what only the user's launchers write (`mcp-headers.cache`, `mcp-relay.cache`). The daemon
 * reads them; only the user's own commands change them.
 */
export function permissionFiles(settings: Pick<Settings, "paths">): string[] {
  return [
    settings.paths.settings,
    dirname(settings.paths.starter),
    settings.paths.installManifest,
    settings.paths.mcpHeadersCache,
    settings.paths.mcpRelayCache,
  ];
}

/**
 * The agent commands the daemon may run: each configured command resolved on PATH, minus any
 * whose file (or the file a symlink names) the daemon could rewrite, i.e. one inside its
 * writable data dir but outside {@linkcode permissionFiles}. Granting `--allow-run` on a file
 * the daemon may write would let it run anything at all.
 */
export function agentRunPaths(settings: Settings): string[] {
  const commands = [
    settings.extraction.agentCommand[0],
    settings.reconciliation.agentCommand[0],
    settings.compaction.agentCommand[0],
    // llm's KILL_COMMAND: signals an agent's whole process group on timeout, cancel and
    // shutdown (Deno.kill on a group would need an unrestricted --allow-run).
    "kill",
  ];
  const granted: string[] = [];
  for (const command of commands) {
    // An absolute path is granted even when nothing is there yet: the spawn then fails with
    // "not found", which the ACP client reports as such, instead of a permission error.
    const path = resolveCommand(command) ?? (command.startsWith("/") ? command : null);
    if (path === null || granted.includes(path)) continue;
    if (daemonMayWrite(path, settings) || daemonMayWrite(realPath(path), settings)) continue;
    granted.push(path);
  }
  return granted;
}

function daemonMayWrite(path: string, settings: Settings): boolean {
  const inside = (dir: string) => path === dir || path.startsWith(dir.replace(/\/+$/, "") + "/");
  const dataDirs = [settings.dataDir, realPath(settings.dataDir)];
  if (!dataDirs.some(inside)) return false;
  const protectedPaths = permissionFiles(settings).flatMap((p) => [p, realPath(p)]);
  return !protectedPaths.some(inside);
}

function realPath(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/** Computes the daemon's permissions from the settings. */
export function collectorPermissions(
  settings: Settings,
  options: { agentCommands?: string[]; extraRead?: string[] } = {},
): CollectorPermissions {
  const host = settings.collector.host.includes(":")
    ? `[${settings.collector.host}]`
    : settings.collector.host;
  const embedding = embeddingPermissions(settings.embedding.backend);
  const team = settings.team.url === "" ? [] : [postgresHostPort(settings.team.url)];
  return {
    net: [
      `${host}:${settings.collector.port}`,
      `unix:${settings.paths.socket}`,
      `unix:${settings.paths.tcpRelaySocket}`,
      ...team,
    ].join(","),
    read: [
      settings.dataDir,
      ...COLLECTOR_ASSET_DIRS,
      ...embedding.read,
      // The team sync Worker's code, to start it (a Worker's imports are permission-checked).
      ...(team.length > 0 ? teamWorkerCodePaths() : []),
      // The term-space Worker's code, for the same reason (the daemon cannot grant a Worker
      // more than it has).
      ...termSpaceWorkerCodePaths(),
      // The agent commands' own files, only so the daemon can tell whether one is there
      // (`extraction.strategy: auto`); it may run them anyway.
      ...(options.agentCommands ?? []),
      ...(options.extraRead ?? []),
    ],
    write: [settings.dataDir],
    denyWrite: permissionFiles(settings),
    run: [...(options.agentCommands ?? []), ...embedding.run],
    sys: embedding.sys,
    // Its own variables, and the ones it passes on to the agents it runs (and to no one else).
    env: [
      ...new Set([
        ...COLLECTOR_ENV_VARS,
        ...(team.length > 0 ? TEAM_CLIENT_ENV : []),
        ...settings.extraction.agentEnv,
      ]),
    ],
  };
}

/** Renders permissions as `deno run` flags (never `-A`, never a bare `--allow-*`). */
export function permissionFlags(permissions: CollectorPermissions): string[] {
  const flags = [
    "--no-prompt",
    // Not a permission: lets the daemon start the use-lite Worker with NARROWER permissions
    // than its own (without it a Worker inherits everything the daemon holds).
    "--unstable-worker-options",
    `--allow-net=${permissions.net}`,
    `--allow-read=${permissions.read.join(",")}`,
    `--allow-write=${permissions.write.join(",")}`,
    `--deny-write=${permissions.denyWrite.join(",")}`,
    `--allow-env=${permissions.env.join(",")}`,
  ];
  if (permissions.run.length > 0) flags.push(`--allow-run=${permissions.run.join(",")}`);
  if (permissions.sys.length > 0) flags.push(`--allow-sys=${permissions.sys.join(",")}`);
  return flags;
}

/**
 * True when `command` can be run here: the file at an absolute path, or a name on PATH. The
 * daemon may read PATH only when `extraction.agentEnv` lists it, and may look only at the agent
 * commands' own files, so whenever it may not look, the answer is whether the launcher granted
 * it `--allow-run` for the command, which the launcher only does for commands it found on PATH
 * and for absolute paths.
 */
export function commandAvailable(command: string): boolean {
  return commandPresence(command) ?? runGranted(command);
}

function runGranted(command: string): boolean {
  return Deno.permissions.querySync({ name: "run", command }).state === "granted";
}

/**
 * V8 flags of the daemon (not permissions; one `--v8-flags` argument in {@linkcode daemonArgs}).
 *
 * `--no-memory-pool-share-memory-on-teardown`: when a Worker's isolate ends, V8 otherwise hands
 * its heap pages (256 KiB each) to a process-wide pool whose release is left to another
 * isolate's task runner, which in Deno never runs it: a term-space training Worker's whole peak
 * heap (~100-175 MiB at 20,000 records) then stays resident in the idle collector for good.
 * With it, the pages go back to the system when the Worker ends (a 200k-object Worker: 104 MiB
 * RSS left after `terminate()` without, 47 MiB with, from 28 MiB before it).
 *
 * `--max-semi-space-size=2` (MB): V8 grows the young generation to 48 MiB after a burst of
 * short-lived objects (a ranked search over 50k records, a training's pages of records, a vector
 * load), and keeps it committed while idle. Capped, it stays under 5 MiB in every isolate (idle
 * collector at 100k records: 182 -> 159 MiB before any search, 331 -> 289 MiB with the vectors
 * loaded); scavenges are more frequent but each is shorter (ingest p99 measured unchanged).
 */
export const DAEMON_V8_FLAGS: readonly string[] = Object.freeze([
  "--no-memory-pool-share-memory-on-teardown",
  "--max-semi-space-size=2",
]);

/**
 * glibc malloc settings of the daemon ({@linkcode daemonEnv}): fixed 1 MiB mmap and trim
 * thresholds. By default glibc raises both after a large block is freed (up to 32 and 64 MiB), so
 * the many mid-size buffers a term-space training Worker allocates next come from its thread's
 * arena and stay resident after the Worker has ended (27 MiB in the idle collector at 100k
 * records). Fixed thresholds give a freed arena top and any block over 1 MiB back at once.
 */
export const DAEMON_GLIBC_TUNABLES = "glibc.malloc.trim_threshold=1048576:" +
  "glibc.malloc.mmap_threshold=1048576";

/**
 * The environment the daemon is started with, on top of its parent's: Deno's own quiet settings
 * (`DENO_ENV`: no update check, no prompt), and {@linkcode DAEMON_GLIBC_TUNABLES}, before any
 * `GLIBC_TUNABLES` the user set (glibc lets the later win).
 */
export function daemonEnv(): Record<string, string> {
  const inherited = Deno.env.get("GLIBC_TUNABLES");
  return {
    ...DENO_ENV,
    GLIBC_TUNABLES: inherited ? `${DAEMON_GLIBC_TUNABLES}:${inherited}` : DAEMON_GLIBC_TUNABLES,
  };
}

/**
 * The full `deno run` argument list that launches the daemon with exactly its permissions
 * (`kiro-learn serve` and `start`, and the tests that run the real daemon; each passes
 * {@linkcode daemonEnv} too).
 */
export function daemonArgs(settings: Settings, options: { detached?: boolean } = {}): string[] {
  const permissions = collectorPermissions(settings, { agentCommands: agentRunPaths(settings) });
  return [
    "run",
    "--config",
    WORKSPACE_CONFIG,
    // No dynamic import() from deno.land, jsr.io, esm.sh… nor npm beyond the local cache.
    ...LOCAL_MODULES_ONLY,
    ...permissionFlags(permissions),
    `--v8-flags=${DAEMON_V8_FLAGS.join(",")}`,
    DAEMON_ENTRY,
    ...(options.detached ? ["--detached"] : []),
  ];
}

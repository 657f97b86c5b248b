/**
 * The daemon as a process seen from the command line: its pid file, whether a pid is alive, and
 * whether a pid is proven to be this data dir's collector.
 *
 * Nothing here sends a signal: a liveness check that signals (SIGCONT, as this module once did)
 * acts on whatever pid it is handed, and `/healthz` hands out any pid an impostor on the port
 * likes. Only {@linkcode provenCollector}'s pid may be signalled, by the caller.
 *
 * @module
 */
import type { Settings } from "@kiro-learn/core/settings";
import { DAEMON_ENTRY } from "../daemon/permissions/mod.ts";

/** Reads the daemon's pid file, or null. */
export function readPid(settings: Settings): number | null {
  try {
    const pid = Number(Deno.readTextFileSync(settings.paths.pid).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * True when a process with `pid` exists and is not a zombie, with the semantics of signal 0 and
 * without sending anything: `/proc/<pid>/stat` on Linux, `kill -0` elsewhere.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // The state follows the command name, which is in parentheses and may hold anything.
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return hasProcFs() ? false : killZero(pid);
    return killZero(pid);
  }
}

function hasProcFs(): boolean {
  try {
    return Deno.statSync("/proc/self").isDirectory;
  } catch {
    return false;
  }
}

function killZero(pid: number): boolean {
  try {
    return new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
}

/**
 * The pid of this data dir's collector, proven, or null: the pid its pid file names (a regular
 * file, not a link, owned by the data dir's owner), of a live process of that same user whose
 * command line runs our daemon entry with this data dir in its read permission. Without `/proc`
 * (macOS) the pid file is all there is, so it is trusted when its process is alive.
 */
export function provenCollector(settings: Settings): number | null {
  const pid = readPid(settings);
  if (pid === null || !processAlive(pid)) return null;
  try {
    const owner = Deno.statSync(settings.dataDir).uid;
    const file = Deno.lstatSync(settings.paths.pid);
    if (!file.isFile || (owner !== null && file.uid !== owner)) return null;
    if (!hasProcFs()) return pid;
    if (owner !== null && Deno.statSync(`/proc/${pid}`).uid !== owner) return null;
    return runsDaemonOf(pid, settings.dataDir) ? pid : null;
  } catch {
    return null;
  }
}

/** True when `pid`'s command line runs our daemon entry for `dataDir`. */
export function runsDaemonOf(pid: number, dataDir: string): boolean {
  try {
    const args = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
    return args.includes(DAEMON_ENTRY) &&
      args.some((a) =>
        a.startsWith("--allow-read=") && a.slice("--allow-read=".length).split(",")[0] === dataDir
      );
  } catch {
    return false;
  }
}

/** Removes the pid file if it is there. */
export function removePidFile(settings: Settings): void {
  try {
    Deno.removeSync(settings.paths.pid);
  } catch {
    // Already gone (the daemon removes it itself on a clean exit).
  }
}

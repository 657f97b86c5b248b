/**
 * The daemon as a process seen from the command line: its pid file, whether a pid is alive,
 * and whether a pid really runs our daemon entry.
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

/** True when a process with `pid` exists. */
export function processAlive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

/**
 * True when `pid` runs our daemon entry; guards against a reused pid. Without `/proc` (macOS)
 * the pid file is all there is, so it is trusted.
 */
export function isOurDaemon(pid: number): boolean {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").includes(DAEMON_ENTRY);
  } catch {
    return true;
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

/**
 * `serve`, `start`, `stop`: running the daemon with exactly its permissions.
 *
 * @module
 */
import type { Settings } from "@kiro-learn/core/settings";
import {
  collectorPermissions,
  DAEMON_ENTRY,
  permissionFlags,
  resolveCommand,
} from "../daemon/permissions/permissions.ts";
import { collectorUrl, health } from "./client.ts";

const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** The full `deno run` argument list for the daemon. */
export function daemonArgs(settings: Settings, options: { detached?: boolean } = {}): string[] {
  const agents = [
    settings.extraction.agentCommand[0],
    settings.reconciliation.agentCommand[0],
    settings.compaction.agentCommand[0],
  ]
    .map((c) => resolveCommand(c))
    .filter((c): c is string => c !== null);
  const permissions = collectorPermissions(settings, { agentCommands: [...new Set(agents)] });
  return [
    "run",
    "--config",
    CONFIG,
    ...permissionFlags(permissions),
    DAEMON_ENTRY,
    ...(options.detached ? ["--detached"] : []),
  ];
}

/** Runs the daemon in the foreground until it exits; returns its exit code. */
export async function serve(settings: Settings): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: daemonArgs(settings),
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const forward = (signal: Deno.Signal) => () => {
    try {
      child.kill(signal);
    } catch {
      // Already exited.
    }
  };
  const onTerm = forward("SIGTERM");
  const onInt = forward("SIGINT");
  Deno.addSignalListener("SIGTERM", onTerm);
  Deno.addSignalListener("SIGINT", onInt);
  const status = await child.status;
  Deno.removeSignalListener("SIGTERM", onTerm);
  Deno.removeSignalListener("SIGINT", onInt);
  return status.code;
}

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

/** Starts the daemon detached and waits until it is healthy. */
export async function start(
  settings: Settings,
  options: { timeoutMs?: number; print?: (line: string) => void } = {},
): Promise<{ url: string; pid: number; already: boolean }> {
  const print = options.print ?? console.log;
  const url = collectorUrl(settings);
  const running = await health(settings);
  if (running) {
    print(`kiro-learn is already running at ${url} (pid ${running.pid})`);
    return { url, pid: running.pid, already: true };
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: daemonArgs(settings, { detached: true }),
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
  let exited = false;
  child.status.then(() => exited = true);
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  while (Date.now() < deadline) {
    const h = await health(settings);
    if (h) {
      print(`kiro-learn started at ${url} (pid ${h.pid})`);
      return { url, pid: h.pid, already: false };
    }
    if (exited) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `the collector did not become healthy at ${url}; see the log in ${settings.paths.logs}`,
  );
}

/** Stops the daemon: SIGTERM, then SIGKILL after `graceMs` (5 s). */
export async function stop(
  settings: Settings,
  options: { graceMs?: number; print?: (line: string) => void } = {},
): Promise<boolean> {
  const print = options.print ?? console.log;
  const h = await health(settings);
  const pid = h?.pid ?? readPid(settings);
  if (pid === null || !processAlive(pid)) {
    print("kiro-learn is not running");
    try {
      Deno.removeSync(settings.paths.pid);
    } catch {
      // No stale pid file.
    }
    return false;
  }
  if (!h && !isOurDaemon(pid)) {
    print(`pid ${pid} in ${settings.paths.pid} is not a kiro-learn collector; removing the file`);
    Deno.removeSync(settings.paths.pid);
    return false;
  }
  Deno.kill(pid, "SIGTERM");
  const deadline = Date.now() + (options.graceMs ?? 5000);
  while (Date.now() < deadline && processAlive(pid)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  if (processAlive(pid)) {
    Deno.kill(pid, "SIGKILL");
    print(`kiro-learn did not stop within ${options.graceMs ?? 5000} ms: killed pid ${pid}`);
  } else {
    print(`kiro-learn stopped (pid ${pid})`);
  }
  try {
    Deno.removeSync(settings.paths.pid);
  } catch {
    // The daemon removed it itself.
  }
  return true;
}

// Guards against a reused pid: only a process running our daemon entry is ours.
function isOurDaemon(pid: number): boolean {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes("collector/daemon/main.ts");
  } catch {
    return true; // No /proc (macOS): the pid file is all we have.
  }
}

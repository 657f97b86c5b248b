/**
 * `kiro-learn start`: the collector in the background, waited for until it is healthy.
 *
 * @module
 */
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { daemonArgs, daemonEnv } from "../daemon/permissions/mod.ts";
import { collectorUrl, health, portTaken, probe } from "./_client.ts";
import type { Command } from "./_command.ts";

/** Starts the daemon detached and waits until it is healthy. */
export async function start(
  settings: Settings,
  options: { timeoutMs?: number; print?: (line: string) => void } = {},
): Promise<{ url: string; pid: number; already: boolean }> {
  const print = options.print ?? console.log;
  const url = collectorUrl(settings);
  // Something on our port is ours only if it proves it holds this data dir's token.
  const found = await probe(settings);
  if (found.state === "foreign") throw new Error(portTaken(settings));
  if (found.state === "ours") {
    print(`kiro-learn is already running at ${url} (pid ${found.health.pid})`);
    return { url, pid: found.health.pid, already: true };
  }
  const timeoutMs = options.timeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  // Two hooks that find the collector down at once both run the starter: one spawns the
  // daemon, the other waits for it (a second daemon would only lose the port).
  const lock = `${settings.paths.pid}.starting`;
  const spawning = takeStartLock(lock, timeoutMs);
  try {
    let exited = false;
    if (spawning) {
      const child = new Deno.Command(Deno.execPath(), {
        args: daemonArgs(settings, { detached: true }),
        env: daemonEnv(),
        stdin: "null",
        stdout: "null",
        stderr: "null",
        detached: true,
      }).spawn();
      child.unref();
      child.status.then(() => exited = true);
    }
    while (Date.now() < deadline) {
      const h = await health(settings);
      if (h) {
        print(
          spawning
            ? `kiro-learn started at ${url} (pid ${h.pid})`
            : `kiro-learn is already running at ${url} (pid ${h.pid}; started alongside)`,
        );
        return { url, pid: h.pid, already: !spawning };
      }
      if (exited) {
        // It could not bind: whoever took the port meanwhile is not ours.
        if ((await probe(settings)).state === "foreign") throw new Error(portTaken(settings));
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    if (spawning) removeLock(lock);
  }
  throw new Error(
    `the collector did not become healthy at ${url}; see the log in ${settings.paths.logs}`,
  );
}

function removeLock(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Taken over as stale by another start meanwhile.
  }
}

/**
 * Takes the start lock (a file created exclusively): true when this process should spawn the
 * daemon. A lock older than `staleMs` is left from a start that died, and is taken over.
 */
function takeStartLock(path: string, staleMs: number): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      Deno.openSync(path, { write: true, createNew: true, mode: 0o600 }).close();
      return true;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      const age = Date.now() - (Deno.statSync(path).mtime?.getTime() ?? 0);
      if (age < staleMs) return false;
      Deno.removeSync(path);
    }
  }
  return false;
}

/** The `start` command. */
export const startCommand: Command = {
  name: "start",
  usage: "kiro-learn start",
  summary: "start the collector in the background and wait until it is healthy",
  run: async () => {
    await start(loadSettings());
    return 0;
  },
};

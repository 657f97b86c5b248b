/**
 * `kiro-learn stop`: SIGTERM to the collector, SIGKILL after a grace period.
 *
 * @module
 */
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { health } from "./_client.ts";
import type { Command } from "./_command.ts";
import { processAlive, provenCollector, readPid, removePidFile } from "./_daemon_process.ts";

/** Stops the daemon: SIGTERM, then SIGKILL after `graceMs` (5 s). True when one was running. */
export async function stop(
  settings: Settings,
  options: { graceMs?: number; print?: (line: string) => void } = {},
): Promise<boolean> {
  const print = options.print ?? console.log;
  const graceMs = options.graceMs ?? 5000;
  // Whatever answers on the port names a pid, but anyone can listen there: only the pid our own
  // collector wrote into our data dir, proven to run our daemon entry for this data dir as this
  // user, is ever signalled (liveness is read from /proc, never probed with a signal).
  const pid = provenCollector(settings);
  if (pid === null) {
    const named = readPid(settings) ?? (await health(settings))?.pid ?? null;
    if (named !== null && processAlive(named)) {
      print(
        `pid ${named} is not this data dir's kiro-learn collector (${settings.paths.pid}); ` +
          "nothing was signalled",
      );
    } else {
      print("kiro-learn is not running");
    }
    removePidFile(settings);
    return false;
  }
  Deno.kill(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && processAlive(pid)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  if (processAlive(pid)) {
    Deno.kill(pid, "SIGKILL");
    print(`kiro-learn did not stop within ${graceMs} ms: killed pid ${pid}`);
  } else {
    print(`kiro-learn stopped (pid ${pid})`);
  }
  removePidFile(settings);
  return true;
}

/** The `stop` command. */
export const stopCommand: Command = {
  name: "stop",
  usage: "kiro-learn stop",
  summary: "stop the collector (SIGTERM, then SIGKILL after 5 s)",
  run: async () => {
    await stop(loadSettings());
    return 0;
  },
};

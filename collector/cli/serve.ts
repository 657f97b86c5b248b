/**
 * `kiro-learn serve`: the collector in the foreground, with exactly its permissions (what
 * `deno task serve` runs).
 *
 * @module
 */
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { daemonArgs, daemonEnv } from "../daemon/permissions/mod.ts";
import type { Command } from "./_command.ts";

/** Runs the daemon in the foreground until it exits; returns its exit code. */
export async function serve(settings: Settings): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: daemonArgs(settings),
    env: daemonEnv(),
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  // Ctrl-C and SIGTERM reach the daemon, which shuts down gracefully; we exit with its code.
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

/** The `serve` command. */
export const serveCommand: Command = {
  name: "serve",
  usage: "kiro-learn serve",
  summary: "run the collector in the foreground (what `deno task serve` does)",
  run: () => serve(loadSettings()),
};

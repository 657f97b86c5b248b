/**
 * How the `kiro-learn` CLI is launched outside `deno task`: by the `kiro-learn` command on PATH
 * (`kiro-learn link`) and by the collector's starter. Both run the same argv.
 *
 * @module
 */
import { CLI_ENTRY, denoEnvLines, LOCAL_MODULES_ONLY, WORKSPACE_CONFIG } from "./layout.ts";
import { shellQuote } from "./shim.ts";

/**
 * The `kiro-learn` CLI's permissions (`deno task kiro-learn` uses the same; a test pins it):
 * a short-lived tool run by the user, which edits agents' config files, launches the collector
 * and `git`, and talks to the collector on loopback. `--no-remote` is not a permission: no
 * remote module is ever resolved (the task may still fetch npm packages on a first run).
 */
export const CLI_RUN_FLAGS: readonly string[] = Object.freeze([
  "--no-remote",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-net=127.0.0.1,localhost",
]);

/**
 * The argv that runs the CLI (arguments to append). {@linkcode LOCAL_MODULES_ONLY}: it never
 * waits on the registry, and works offline, once the checkout has been set up.
 */
export function cliArgv(options: { denoPath?: string } = {}): string[] {
  return [
    options.denoPath ?? Deno.execPath(),
    "run",
    ...LOCAL_MODULES_ONLY,
    "--no-prompt",
    ...CLI_RUN_FLAGS.filter((flag) => !LOCAL_MODULES_ONLY.includes(flag)),
    "--config",
    WORKSPACE_CONFIG,
    CLI_ENTRY,
  ];
}

/** The `kiro-learn` command's text: a POSIX shell launcher that passes its arguments on. */
export function cliLauncherScript(options: { denoPath?: string } = {}): string {
  return [
    "#!/bin/sh",
    "# Written by `kiro-learn link`: the kiro-learn CLI of the checkout it names.",
    ...denoEnvLines(),
    `exec ${cliArgv(options).map(shellQuote).join(" ")} "$@"`,
    "",
  ].join("\n");
}

/**
 * The collector's starter: a small shell script in the data dir that runs `kiro-learn start`
 * for this data dir. The installer writes it; a hook that finds the collector down runs it
 * (detached) so that memory works after a reboot without the user doing anything.
 *
 * Why a script and not `deno` itself: a shim granted `--allow-run=<deno>` could run any Deno
 * program with any permissions. Granted `--allow-run=<data dir>/bin/start-collector`, it can
 * run this one file, which takes no arguments and only ever starts the collector. The file sits
 * in the data dir (mode 0700), which shims may read but not write.
 *
 * @module
 */
import { writeFileAtomic } from "../fs/mod.ts";
import { dirname } from "../path.ts";
import { cliArgv } from "./cli.ts";
import { denoEnvLines } from "./layout.ts";
import { shellQuote } from "./shim.ts";

/** Options for {@linkcode starterScript}. */
export interface StarterOptions {
  /** The data dir the started collector serves (pinned in the script). */
  dataDir: string;
  /** The `deno` binary (default `Deno.execPath()`). */
  denoPath?: string;
}

/** The starter's text: `kiro-learn start` for one data dir, output to its log folder. */
export function starterScript(options: StarterOptions): string {
  const argv = [...cliArgv(options), "start"];
  return [
    "#!/bin/sh",
    "# Written by `kiro-learn install`: a hook that finds the collector down runs this file to",
    "# start it. It takes no arguments. Delete it to turn that off.",
    `KIRO_LEARN_HOME=${shellQuote(options.dataDir)}`,
    "export KIRO_LEARN_HOME",
    ...denoEnvLines(),
    `exec ${argv.map(shellQuote).join(" ")} >/dev/null 2>&1 </dev/null`,
    "",
  ].join("\n");
}

/** Writes the starter at `path` (mode 0700, its folder created 0700). */
export function writeStarter(path: string, options: StarterOptions): void {
  Deno.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileAtomic(path, starterScript(options), { mode: 0o700 });
}

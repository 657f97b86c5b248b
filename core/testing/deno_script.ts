/**
 * Runs a Deno script the way a user would (`deno run -A SCRIPT …`) and hands back what it printed:
 * the benchmarks' end-to-end tests check their scripts' output lines this way.
 *
 * @module
 */

import { DENO_ENV } from "../launch/mod.ts";

/** What a script run printed, decoded, and how it ended. */
export interface ScriptRun {
  /** Exit code. */
  code: number;
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
}

/**
 * Runs `deno run -A ...flags script ...args` in `cwd` (with `env` added) and waits for it to
 * end; `flags` are Deno's own (`--v8-flags=…`), `args` the script's.
 */
export async function runDenoScript(
  script: string,
  options: {
    args?: readonly string[];
    flags?: readonly string[];
    cwd: string;
    env?: Record<string, string>;
  },
): Promise<ScriptRun> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...(options.flags ?? []), script, ...(options.args ?? [])],
    cwd: options.cwd,
    env: { ...DENO_ENV, ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code, stdout: text.decode(stdout), stderr: text.decode(stderr) };
}

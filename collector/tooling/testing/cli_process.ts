/**
 * Runs the real `kiro-learn` CLI as a process, with the permissions `deno task kiro-learn`
 * grants it, for tests of what a user types.
 *
 * @module
 */
import { CLI_ENTRY, CLI_RUN_FLAGS, DENO_ENV } from "@kiro-learn/core/launch";

/** Runs `kiro-learn <args>` in `cwd` (default: the checkout) with `env` on top of ours. */
export function runKiroLearn(
  args: readonly string[],
  options: { env: Record<string, string>; cwd?: string },
): Promise<Deno.CommandOutput> {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_RUN_FLAGS, CLI_ENTRY, ...args],
    cwd: options.cwd ?? new URL("../../../", import.meta.url).pathname,
    env: { ...DENO_ENV, ...options.env },
  }).output();
}

/** A finished process's stdout and stderr, as text. */
export function processText(output: Deno.CommandOutput): string {
  const decoder = new TextDecoder();
  return decoder.decode(output.stdout) + decoder.decode(output.stderr);
}

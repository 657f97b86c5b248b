/**
 * Runs the real `kiro-learn` CLI as a process, with the permissions `deno task kiro-learn`
 * grants it, for tests of what a user types.
 *
 * @module
 */
import { CLI_ENTRY, CLI_RUN_FLAGS, DENO_ENV } from "@kiro-learn/core/launch";

/**
 * Runs `kiro-learn <args>` in `cwd` (default: the checkout) with `env` on top of ours, and
 * `stdin` on its standard input (none when not given).
 */
export async function runKiroLearn(
  args: readonly string[],
  options: { env: Record<string, string>; cwd?: string; stdin?: string },
): Promise<Deno.CommandOutput> {
  const command = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_RUN_FLAGS, CLI_ENTRY, ...args],
    cwd: options.cwd ?? new URL("../../../", import.meta.url).pathname,
    env: { ...DENO_ENV, ...options.env },
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  if (options.stdin === undefined) return await command.output();
  const child = command.spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(options.stdin));
  await writer.close();
  return await child.output();
}

/** A finished process's stdout and stderr, as text. */
export function processText(output: Deno.CommandOutput): string {
  const decoder = new TextDecoder();
  return decoder.decode(output.stdout) + decoder.decode(output.stderr);
}

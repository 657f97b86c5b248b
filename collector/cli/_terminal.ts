/**
 * The CLI's output to the terminal: everything a command prints may hold stored text (titles,
 * summaries, paths, project names, errors the collector echoes), so every line goes through one
 * function, core's `terminalSafe`, on its way out.
 *
 * @module
 */
import { terminalSafe } from "@kiro-learn/core/terminal";

const METHODS = ["log", "info", "warn", "error", "debug"] as const;

/**
 * Makes every `console` line of this process terminal-safe: strings go through `terminalSafe`,
 * anything else is inspected first. Commands print with `console` (or a `print` that defaults to
 * it), so this one guard at the entry covers all of them, including the ones added later.
 */
export function guardConsoleOutput(target: Console = console): void {
  for (const name of METHODS) {
    const original = target[name].bind(target);
    target[name] = (...args: unknown[]) =>
      original(
        ...args.map((a) => terminalSafe(typeof a === "string" ? a : Deno.inspect(a))),
      );
  }
}

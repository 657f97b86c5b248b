/**
 * Hook command strings. Every agent runs a hook's command through a POSIX shell, so an argv is
 * single-quoted element by element, followed by `|| true` (a failing shim must never fail or block
 * the agent) and a marker comment that lets a later install or uninstall recognise our hooks even
 * after the shim moved. Claude Code's hooks take the `exec` form instead (`[ -x <launcher> ] &&
 * exec <argv>; true`): no shell waits on the launcher, which exits 0 itself.
 *
 * @module
 */

import { AGENT_PID_ARG, shellQuote } from "@kiro-learn/core/launch";

/** The comment that ends every hook command kiro-learn writes. */
export const HOOK_MARKER = "# managed by kiro-learn";

// kiro-learn's Node edition registered "<home>/.kiro-learn/bin/shim" and ".../ide-shim" hooks;
// recognising them lets an upgrade replace them instead of capturing every event twice.
const LEGACY_SHIM = /[/\\]\.kiro-learn[/\\]bin[/\\](?:shim|ide-shim)\b/;

export { shellQuote };

/**
 * The shell text that runs `argv` exactly (no trailing operator or marker). A program written
 * `$HOME/…` (a launcher in the default data dir, see core/launch's `portablePath`) keeps `$HOME`
 * for the shell to expand, so the command is the same on every machine.
 */
export function quoteArgv(argv: readonly string[]): string {
  return argv.map((arg, i) =>
    i === 0 && arg.startsWith("$HOME/") ? `"$HOME"${shellQuote(arg.slice(5))}` : shellQuote(arg)
  ).join(" ");
}

/**
 * The hook command for `argv`: quoted argv, `|| true`, and the marker. Throws a `TypeError` for
 * an empty argv or an element no shell can pass (a NUL or a line break).
 */
export function hookCommand(
  argv: readonly string[],
  options: { passAgentPid?: boolean; exec?: boolean } = {},
): string {
  assertArgv(argv);
  // The hook runs under `sh -c`, so the shim's parent is a throw-away shell; `$PPID` (left
  // unquoted on purpose) is the agent itself, which keys Kiro's per-process session id.
  const pid = options.passAgentPid ? ` ${AGENT_PID_ARG}` : "";
  if (options.exec && argv[0].includes("/")) {
    // The shell becomes the program (one process fewer per hook, on the agent's path) when it
    // is there, and does nothing, quietly, when it is not; the program must itself exit 0.
    return `${EXEC_GUARD} ${quoteArgv(argv.slice(0, 1))}${EXEC_THEN}${
      quoteArgv(argv)
    }${pid}; true ${HOOK_MARKER}`;
  }
  return `${quoteArgv(argv)}${pid} || true ${HOOK_MARKER}`;
}

/** How a hook command in the `exec` form of {@linkcode hookCommand} starts. */
const EXEC_GUARD = "[ -x";

/** What stands between the guarded program and the argv it runs, in the `exec` form. */
const EXEC_THEN = " ] && exec ";

/** The argv a hook command runs, in either form of {@linkcode hookCommand}. */
export function hookArgv(command: string): string[] {
  const exec = command.startsWith(`${EXEC_GUARD} `) ? command.indexOf(EXEC_THEN) : -1;
  return splitCommand(exec < 0 ? command : command.slice(exec + EXEC_THEN.length));
}

/** Throws a `TypeError` unless `argv` is a non-empty list of strings a shell can pass. */
export function assertArgv(argv: readonly unknown[]): asserts argv is string[] {
  if (!Array.isArray(argv) || argv.length === 0) {
    throw new TypeError("a hook command needs at least the program to run");
  }
  for (const arg of argv) {
    if (typeof arg !== "string") throw new TypeError(`argument ${String(arg)} is not a string`);
    if (/[\0\r\n]/.test(arg)) {
      throw new TypeError(`argument ${JSON.stringify(arg)} holds a NUL or a line break`);
    }
  }
  if ((argv[0] as string) === "") throw new TypeError("the program to run is empty");
}

/**
 * Splits the first simple command of a shell text into words, undoing quoting; stops at the first
 * unquoted operator (`|`, `&`, `;`) or comment. Used to find the shim a hook runs.
 */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  const n = command.length;
  while (i < n) {
    const ch = command[i];
    if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      const stop = end < 0 ? n : end;
      word += command.slice(i + 1, stop);
      inWord = true;
      i = stop + 1;
    } else if (ch === '"') {
      i++;
      while (i < n && command[i] !== '"') {
        if (command[i] === "\\" && i + 1 < n && '"\\$`\n'.includes(command[i + 1])) i++;
        word += command[i];
        i++;
      }
      inWord = true;
      i++;
    } else if (ch === "\\" && i + 1 < n) {
      word += command[i + 1];
      inWord = true;
      i += 2;
    } else if (ch === " " || ch === "\t") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
    } else if ("|&;\n".includes(ch) || (ch === "#" && !inWord)) {
      break;
    } else {
      word += ch;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * True when a hook command is one of ours: it carries the marker, contains one of the
 * `known` command texts (the quoted argv of the shims we install now), or runs a Node-edition
 * kiro-learn shim.
 */
export function isOurCommand(command: unknown, known: readonly string[] = []): boolean {
  if (typeof command !== "string") return false;
  if (command.includes(HOOK_MARKER)) return true;
  if (known.some((text) => text !== "" && command.includes(text))) return true;
  return LEGACY_SHIM.test(command);
}

/**
 * What every `kiro-learn` command is: its usage line, summary, options and what it runs.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { isAbsolute, resolve } from "@kiro-learn/core/path";

/** Parsed arguments handed to a command. */
export interface CommandArgs {
  /** Positional arguments after the command name. */
  positionals: string[];
  /** Option values by name (`--dry-run` → `values["dry-run"]`). */
  values: Record<string, unknown>;
}

/** One `kiro-learn` command. */
export interface Command {
  /** The command's name, as typed. */
  name: string;
  /** The usage line printed by `--help` and after a usage error. */
  usage: string;
  /** One line for the command list. */
  summary: string;
  /** `node:util` parseArgs options. */
  options?: Record<string, { type: "string" | "boolean"; short?: string }>;
  /** Runs the command; resolves to the exit code. */
  run(args: CommandArgs): Promise<number>;
}

/** A mistake in how the command was called: printed with the usage line, exit code 2. */
export class UsageError extends Error {}

/** Reads a string option, or undefined. */
export function stringOption(args: CommandArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === "string" ? value : undefined;
}

/** Reads a boolean flag. */
export function flag(args: CommandArgs, name: string): boolean {
  return args.values[name] === true;
}

/** Reads a string option that must be one of `allowed`, or throws a UsageError naming them. */
export function choiceOption<T extends string>(
  args: CommandArgs,
  name: string,
  options: { allowed: readonly T[] },
): T | undefined {
  const { allowed } = options;
  const value = stringOption(args, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be ${allowed.join(", ").replace(/, ([^,]*)$/, " or $1")}`);
  }
  return value as T;
}

/** The kiro-learn checkout (the folder of the workspace's `deno.json`). */
const CHECKOUT = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");

/**
 * The directory the user ran the command in. `deno task` runs a task in the folder of its
 * `deno.json` (the kiro-learn checkout) and leaves the caller's folder in `INIT_CWD`; without it
 * every command would act on the checkout instead of the user's project. `INIT_CWD` is trusted
 * only then: anywhere else the working directory is the user's own (and an inherited `INIT_CWD`
 * may be stale).
 */
export function invocationDir(options: { cwd?: string; initCwd?: string } = {}): string {
  if (chosenDir !== undefined && options.cwd === undefined) return chosenDir;
  const cwd = options.cwd ?? Deno.cwd();
  const init = options.initCwd ?? Deno.env.get("INIT_CWD");
  return cwd.replace(/\/$/, "") === CHECKOUT && init ? init : cwd;
}

let chosenDir: string | undefined;

/**
 * Makes `dir` (a path as the user typed it, resolved against the folder they ran the command
 * in) the folder every later {@linkcode invocationDir} answers: `--project DIR`.
 */
export function chooseInvocationDir(dir: string): string {
  // Kept before `--project` moves the process into DIR.
  launched = launchDir();
  chosenDir = userPath(dir);
  return chosenDir;
}

/**
 * A path the user typed, made absolute against the folder they ran the command in (never
 * against the checkout `deno task` runs in).
 */
export function userPath(path: string): string {
  return isAbsolute(path) ? resolve(path) : resolve(launchDir(), path);
}

let launched: string | undefined;

// Where the user is, whatever --project chose.
function launchDir(): string {
  return launched ?? invocationDir({ cwd: Deno.cwd() });
}

/**
 * `kiro-learn uninstall`: remove what install added. Like every command it acts on the project
 * of the folder it runs in (or `--project DIR`): that project's hooks and MCP entries go, and
 * the user-level wiring, the other projects and the collector stay. `--all` removes everything
 * install added, stopping the collector first; it says what it did either way.
 *
 * @module
 */
import { resolve } from "node:path";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { uninstall } from "./installer/mod.ts";
import { type Command, flag, invocationDir, stringOption, UsageError } from "./_command.ts";
import {
  codexHomeDir,
  copilotConfigDir,
  currentProjectDir,
  homeDir,
  installCommands,
} from "./_install_context.ts";
import { stop } from "./stop.ts";

/** Options of {@linkcode runUninstall}. */
export interface RunUninstallOptions {
  /** Everything install added, user-level wiring and every project included; stops the collector. */
  all?: boolean;
  /** The project to remove the wiring of (default: the project of the folder it runs in). */
  project?: string;
  /** With `all`: delete the memory too. */
  purge?: boolean;
  /** Print the plan, change nothing. */
  dryRun?: boolean;
  /** Where lines go (default: stdout). */
  print?: (line: string) => void;
}

/** Runs `uninstall`: one project's wiring, or with `all` everything (the collector stopped first). */
export async function runUninstall(
  settings: Settings,
  options: RunUninstallOptions,
): Promise<number> {
  const print = options.print ?? console.log;
  if (options.all && options.project !== undefined) {
    throw new UsageError("--all and --project exclude each other");
  }
  if (options.purge && !options.all) {
    throw new UsageError(
      "--purge deletes the memory of every project: use it with --all " +
        "(`kiro-learn uninstall --all --purge`)",
    );
  }
  if (!options.all) return await uninstallProject(settings, options, print);
  if (options.purge) {
    print(`--purge: the memory in ${settings.dataDir} (database, spool, logs, token) goes too`);
  }
  if (!options.dryRun) {
    const stopped = await stop(settings, { print: () => {} });
    print(stopped ? "stopped the collector" : "the collector was not running");
  }
  await uninstall({
    home: homeDir(),
    codexHome: codexHomeDir(),
    copilotHome: copilotConfigDir(),
    projectDir: currentProjectDir(),
    dataDir: settings.dataDir,
    // Memory is the user's: only an explicit --purge deletes it.
    keepData: !options.purge,
    commands: installCommands(settings),
    dryRun: options.dryRun,
    print,
  });
  if (!options.purge) {
    print(
      `kept the memory in ${settings.dataDir} (\`kiro-learn uninstall --all --purge\` deletes it)`,
    );
  }
  return 0;
}

async function uninstallProject(
  settings: Settings,
  options: RunUninstallOptions,
  print: (line: string) => void,
): Promise<number> {
  const folder = options.project === undefined
    ? invocationDir()
    : resolve(invocationDir(), options.project);
  let isDir = false;
  try {
    isDir = Deno.statSync(folder).isDirectory;
  } catch {
    // Reported below.
  }
  if (!isDir) throw new UsageError(`--project ${options.project}: no such folder (${folder})`);
  const projectDir = currentProjectDir(folder);
  const plan = await uninstall({
    home: homeDir(),
    codexHome: codexHomeDir(),
    copilotHome: copilotConfigDir(),
    projectDir,
    dataDir: settings.dataDir,
    keepData: true,
    commands: installCommands(settings),
    dryRun: options.dryRun,
    projectOnly: true,
    print,
  });
  const removed = plan.actions.length > 0;
  print(
    `${removed ? "removed kiro-learn's wiring from" : "nothing of kiro-learn's to remove in"} ` +
      `the project ${projectDir}; left alone: the user-level wiring (~/.claude/settings.json, ` +
      "~/.claude.json, ~/.kiro/agents, ~/.codex, ~/.gemini/settings.json), other projects' wiring, the collector and the memory. " +
      "`kiro-learn uninstall --all` removes everything install added",
  );
  return 0;
}

/** The `uninstall` command. */
export const uninstallCommand: Command = {
  name: "uninstall",
  usage: "kiro-learn uninstall [--project DIR | --all [--purge]] [--dry-run]",
  summary:
    "remove this project's wiring (--all: everything install added, stopping the collector); the memory stays unless --purge",
  options: {
    project: { type: "string" },
    all: { type: "boolean" },
    purge: { type: "boolean" },
    // The default now; still accepted so scripts written for it keep working.
    "keep-data": { type: "boolean" },
    "dry-run": { type: "boolean" },
  },
  run: (args) => {
    if (args.positionals.length > 0) throw new UsageError("uninstall takes no arguments");
    return runUninstall(loadSettings(), {
      all: flag(args, "all"),
      project: stringOption(args, "project"),
      purge: flag(args, "purge"),
      dryRun: flag(args, "dry-run"),
    });
  },
};

/**
 * `kiro-learn install`: register the hooks and the MCP server for Kiro CLI, Kiro IDE and
 * Claude Code (planned in full before anything is written).
 *
 * @module
 */
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { install } from "./installer/mod.ts";
import { choiceOption, type Command, flag } from "./_command.ts";
import { currentProjectDir, homeDir, installCommands } from "./_install_context.ts";

/** Options of {@linkcode runInstall}. */
export interface RunInstallOptions {
  /** Print the plan, change nothing. */
  dryRun?: boolean;
  /** Kiro CLI hook format (default: detected). */
  kiroFormat?: "v2" | "v3" | "auto";
  /** Where Claude Code's hooks go. */
  scope?: "user" | "project";
  /** Also write Kiro IDE 0.x hook files. */
  kiroIdeLegacy?: boolean;
}

/** Runs `install` for the project of the current directory. */
export async function runInstall(settings: Settings, options: RunInstallOptions): Promise<number> {
  const projectDir = currentProjectDir();
  await install({
    home: homeDir(),
    projectDir,
    dataDir: settings.dataDir,
    kiroFormat: options.kiroFormat ?? "auto",
    scope: options.scope ?? "user",
    kiroIdeLegacy: options.kiroIdeLegacy ?? false,
    commands: installCommands(settings),
    dryRun: options.dryRun,
  });
  if (!options.dryRun) {
    console.log("next: `kiro-learn start`, then `kiro-learn doctor` to check the wiring");
  }
  return 0;
}

/** The `install` command. */
export const installCommand: Command = {
  name: "install",
  usage:
    "kiro-learn install [--dry-run] [--kiro-format v2|v3] [--scope user|project] [--kiro-ide-legacy]",
  summary: "register the hooks and the MCP server for Kiro CLI, Kiro IDE and Claude Code",
  options: {
    "dry-run": { type: "boolean" },
    "kiro-format": { type: "string" },
    scope: { type: "string" },
    "kiro-ide-legacy": { type: "boolean" },
  },
  run: (args) =>
    runInstall(loadSettings(), {
      dryRun: flag(args, "dry-run"),
      kiroFormat: choiceOption(args, "kiro-format", { allowed: ["v2", "v3", "auto"] }),
      scope: choiceOption(args, "scope", { allowed: ["user", "project"] }),
      kiroIdeLegacy: flag(args, "kiro-ide-legacy"),
    }),
};

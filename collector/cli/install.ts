/**
 * `kiro-learn install`: register the hooks and the MCP server for Kiro CLI, Kiro IDE and
 * Claude Code (planned in full before anything is written).
 *
 * @module
 */
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { install, INSTALL_AGENTS, type InstallAgent } from "./installer/mod.ts";
import { choiceOption, type Command, type CommandArgs, flag, UsageError } from "./_command.ts";
import {
  codexHomeDir,
  copilotConfigDir,
  currentProjectDir,
  homeDir,
  installCommands,
} from "./_install_context.ts";

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
  /** The agents to wire (default: all). */
  agents?: readonly InstallAgent[];
  /** How Claude Code reaches the MCP tools: `http` (default, on Linux) or `stdio`. */
  mcp?: "http" | "stdio";
}

/** Reads `--agents kiro,claude-code,codex` (any order, at least one). */
export function agentsOption(args: CommandArgs): InstallAgent[] | undefined {
  const value = args.values["agents"];
  if (typeof value !== "string") return undefined;
  const names = value.split(",").map((n) => n.trim()).filter((n) => n !== "");
  const wrong = names.filter((n) => !(INSTALL_AGENTS as readonly string[]).includes(n));
  if (names.length === 0 || wrong.length > 0) {
    throw new UsageError(
      `--agents takes a comma-separated list of ${INSTALL_AGENTS.join(", ")}` +
        (wrong.length > 0 ? ` (not: ${wrong.join(", ")})` : ""),
    );
  }
  return [...new Set(names)] as InstallAgent[];
}

/** Runs `install` for the project of the current directory. */
export async function runInstall(settings: Settings, options: RunInstallOptions): Promise<number> {
  const projectDir = currentProjectDir();
  const plan = await install({
    home: homeDir(),
    codexHome: codexHomeDir(),
    copilotHome: copilotConfigDir(),
    projectDir,
    dataDir: settings.dataDir,
    kiroFormat: options.kiroFormat ?? "auto",
    scope: options.scope ?? "user",
    kiroIdeLegacy: options.kiroIdeLegacy ?? false,
    commands: installCommands(settings, { mcp: options.mcp }),
    dryRun: options.dryRun,
    agents: options.agents,
    collector: { host: settings.collector.host, port: settings.collector.port },
  });
  if (!options.dryRun) {
    console.log("next: `kiro-learn start`, then `kiro-learn doctor` to check the wiring");
  }
  // Another agent's files were wired, but the user must fix one file and run install again.
  return (plan.skipped ?? []).length > 0 ? 1 : 0;
}

/** The `install` command. */
export const installCommand: Command = {
  name: "install",
  usage:
    "kiro-learn install [--dry-run] [--agents kiro,claude-code,codex,gemini-cli,copilot-cli] [--kiro-format v2|v3] [--scope user|project] [--mcp http|stdio] [--kiro-ide-legacy]",
  summary:
    "register the hooks and the MCP server for Kiro CLI, Kiro IDE, Claude Code, Codex CLI, Gemini CLI and Copilot CLI",
  options: {
    "dry-run": { type: "boolean" },
    "kiro-format": { type: "string" },
    scope: { type: "string" },
    "kiro-ide-legacy": { type: "boolean" },
    agents: { type: "string" },
    mcp: { type: "string" },
  },
  run: (args) =>
    runInstall(loadSettings(), {
      dryRun: flag(args, "dry-run"),
      kiroFormat: choiceOption(args, "kiro-format", { allowed: ["v2", "v3", "auto"] }),
      scope: choiceOption(args, "scope", { allowed: ["user", "project"] }),
      kiroIdeLegacy: flag(args, "kiro-ide-legacy"),
      agents: agentsOption(args),
      mcp: choiceOption(args, "mcp", { allowed: ["http", "stdio"] }),
    }),
};

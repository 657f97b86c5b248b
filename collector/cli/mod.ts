/**
 * The `kiro-learn` command line: one module per command, this entry dispatches.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { SettingsError } from "@kiro-learn/core/settings";
import { VERSION } from "@kiro-learn/core/version";
import { CollectorError } from "@kiro-learn/core/api";
import { InstallError } from "./installer/mod.ts";
import { chooseInvocationDir, type Command, UsageError } from "./_command.ts";
import { doctorCommand } from "./doctor.ts";
import { exportCommand } from "./export.ts";
import { forgetCommand } from "./forget.ts";
import { importCommand } from "./import.ts";
import { installCommand } from "./install.ts";
import { linkCommand } from "./link.ts";
import { modelsCommand } from "./models.ts";
import { openCommand } from "./open.ts";
import { replayCommand } from "./replay.ts";
import { searchCommand } from "./search.ts";
import { serveCommand } from "./serve.ts";
import { startCommand } from "./start.ts";
import { statusCommand } from "./status.ts";
import { stopCommand } from "./stop.ts";
import { teamCommand } from "./team.ts";
import { uninstallCommand } from "./uninstall.ts";

export type { Command, CommandArgs } from "./_command.ts";
export { UsageError } from "./_command.ts";
export { guardConsoleOutput } from "./_terminal.ts";
export * from "./doctor.ts";
export * from "./export.ts";
export * from "./forget.ts";
export * from "./git_log.ts";
export * from "./import.ts";
export * from "./install.ts";
export * from "./link.ts";
export * from "./models.ts";
export * from "./open.ts";
export * from "./replay.ts";
export * from "./search.ts";
export * from "./serve.ts";
export * from "./start.ts";
export * from "./status.ts";
export * from "./stop.ts";
export * from "./team.ts";
export * from "./uninstall.ts";

/** Every command, in the order `kiro-learn --help` lists them. */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  startCommand,
  stopCommand,
  statusCommand,
  searchCommand,
  installCommand,
  linkCommand,
  uninstallCommand,
  doctorCommand,
  replayCommand,
  importCommand,
  exportCommand,
  modelsCommand,
  openCommand,
  forgetCommand,
  teamCommand,
];

function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `kiro-learn ${VERSION}: durable project memory for AI coding agents`,
    "",
    "usage: kiro-learn <command> [options] [--project DIR]   (kiro-learn <command> --help for details)",
    "  every command acts on the project of the current folder, or of --project DIR",
    "",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
  ].join("\n");
}

function enterProject(typed: string): void {
  const dir = chooseInvocationDir(typed);
  let isDir = false;
  try {
    isDir = Deno.statSync(dir).isDirectory;
  } catch {
    // Reported below.
  }
  if (!isDir) {
    throw new UsageError(
      `--project ${typed}: no such folder (${dir}); name a folder of the project`,
    );
  }
  Deno.chdir(dir);
}

/** Runs the CLI with `argv`; returns the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(helpText());
    return 0;
  }
  if (name === "--version" || name === "-V") {
    console.log(`kiro-learn ${VERSION}`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.error(`kiro-learn: unknown command "${name}"\n\n${helpText()}`);
    return 2;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: {
        ...command.options,
        help: { type: "boolean", short: "h" },
        project: { type: "string" },
      },
      allowPositionals: true,
    });
    if (values.help) {
      console.log(`usage: ${command.usage} [--project DIR]\n\n${command.summary}`);
      return 0;
    }
    // Every command acts on the project of the folder it runs in; --project names another.
    if (typeof values.project === "string") enterProject(values.project);
    return await command.run({ values, positionals });
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE")) {
      console.error(`kiro-learn ${name}: ${(error as Error).message}\nusage: ${command.usage}`);
      return 2;
    }
    if (
      error instanceof SettingsError || error instanceof CollectorError ||
      error instanceof InstallError
    ) {
      console.error(`kiro-learn: ${error.message}`);
      return 1;
    }
    console.error(`kiro-learn ${name}: ${error instanceof Error ? error.message : error}`);
    return 1;
  }
}

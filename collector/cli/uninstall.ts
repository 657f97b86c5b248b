/**
 * `kiro-learn uninstall`: remove exactly what install added (the collector is stopped first).
 *
 * @module
 */
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { uninstall } from "./installer/mod.ts";
import { type Command, flag } from "./_command.ts";
import { currentProjectDir, homeDir, installCommands } from "./_install_context.ts";
import { stop } from "./stop.ts";

/** Runs `uninstall` (stopping the collector first). */
export async function runUninstall(
  settings: Settings,
  options: { keepData?: boolean; dryRun?: boolean },
): Promise<number> {
  const projectDir = currentProjectDir();
  if (!options.dryRun) await stop(settings, { print: () => {} });
  await uninstall({
    home: homeDir(),
    projectDir,
    dataDir: settings.dataDir,
    keepData: options.keepData ?? false,
    commands: installCommands(settings, { projectDir }),
    dryRun: options.dryRun,
  });
  return 0;
}

/** The `uninstall` command. */
export const uninstallCommand: Command = {
  name: "uninstall",
  usage: "kiro-learn uninstall [--keep-data] [--dry-run]",
  summary: "remove exactly what install added (and the data dir, unless --keep-data)",
  options: { "keep-data": { type: "boolean" }, "dry-run": { type: "boolean" } },
  run: (args) =>
    runUninstall(loadSettings(), {
      keepData: flag(args, "keep-data"),
      dryRun: flag(args, "dry-run"),
    }),
};

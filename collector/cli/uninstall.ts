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
  options: { purge?: boolean; dryRun?: boolean; print?: (line: string) => void },
): Promise<number> {
  const print = options.print ?? console.log;
  const projectDir = currentProjectDir();
  if (options.purge) {
    print(`--purge: the memory in ${settings.dataDir} (database, spool, logs, token) goes too`);
  }
  if (!options.dryRun) await stop(settings, { print: () => {} });
  await uninstall({
    home: homeDir(),
    projectDir,
    dataDir: settings.dataDir,
    // Memory is the user's: only an explicit --purge deletes it.
    keepData: !options.purge,
    commands: installCommands(settings),
    dryRun: options.dryRun,
  });
  if (!options.purge) {
    print(`kept the memory in ${settings.dataDir} (\`kiro-learn uninstall --purge\` deletes it)`);
  }
  return 0;
}

/** The `uninstall` command. */
export const uninstallCommand: Command = {
  name: "uninstall",
  usage: "kiro-learn uninstall [--purge] [--dry-run]",
  summary: "remove exactly what install added; the memory stays unless --purge",
  options: {
    purge: { type: "boolean" },
    // The default now; still accepted so scripts written for it keep working.
    "keep-data": { type: "boolean" },
    "dry-run": { type: "boolean" },
  },
  run: (args) =>
    runUninstall(loadSettings(), {
      purge: flag(args, "purge"),
      dryRun: flag(args, "dry-run"),
    }),
};

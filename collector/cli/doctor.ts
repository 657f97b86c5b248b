/**
 * `kiro-learn doctor`: check the data dir, settings, token, collector, hooks, agent command and
 * spool, and say how to fix what fails.
 *
 * @module
 */
import { resolveProject } from "@kiro-learn/core/project";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { doctor } from "./installer/mod.ts";
import type { Command } from "./_command.ts";
import { homeDir, installCommands } from "./_install_context.ts";
import { invocationDir } from "./_command.ts";

/** Runs `doctor`; its exit code is 0 when every check passes. */
export async function runDoctor(settings: Settings): Promise<number> {
  const project = resolveProject(invocationDir());
  const report = await doctor({
    home: homeDir(),
    projectDir: project.project_root,
    project,
    dataDir: settings.dataDir,
    commands: installCommands(settings),
  });
  return report.exitCode;
}

/** The `doctor` command. */
export const doctorCommand: Command = {
  name: "doctor",
  usage: "kiro-learn doctor",
  summary: "check the data dir, settings, token, collector, hooks, agent command and spool",
  run: () => runDoctor(loadSettings()),
};

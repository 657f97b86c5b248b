/**
 * What `install`, `uninstall` and `doctor` share: the user's home, the project of the current
 * directory, and the commands hooks and MCP entries run.
 *
 * @module
 */
import { mcpCommand, shimCommand } from "@kiro-learn/core/launch";
import { resolveProject } from "@kiro-learn/core/project";
import type { Settings } from "@kiro-learn/core/settings";
import type { InstallCommands } from "./installer/mod.ts";
import { invocationDir } from "./_command.ts";

/** The commands hooks and MCP entries run, for this checkout and these settings. */
export function installCommands(
  settings: Settings,
  options: { projectDir: string },
): InstallCommands {
  return {
    shim: (surface, extraArgs = []) =>
      shimCommand(surface, { settings, args: extraArgs, projectRoots: [options.projectDir] }),
    mcp: () => mcpCommand({ host: settings.collector.host, port: settings.collector.port }),
  };
}

/** The user's home folder, where the agents keep their user-level config. */
export function homeDir(): string {
  const value = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
  if (!value) throw new Error("HOME is not set: cannot find the agents' config folders");
  return value;
}

/** The project the cwd belongs to (its root), for per-project hook files. */
export function currentProjectDir(cwd: string = invocationDir()): string {
  return resolveProject(cwd).project_root;
}

/**
 * What `install`, `uninstall` and `doctor` share: the user's home, the project of the current
 * directory, and the commands hooks and MCP entries run.
 *
 * @module
 */
import { launcherFiles, launcherPath, portablePath, shellQuote } from "@kiro-learn/core/launch";
import { resolveProject } from "@kiro-learn/core/project";
import type { Settings } from "@kiro-learn/core/settings";
import type { InstallCommands } from "./installer/mod.ts";
import { invocationDir } from "./_command.ts";

/**
 * The commands hooks and MCP entries run: the launchers in the data dir (core/launch's
 * `hook_launcher.ts`), named `$HOME/.kiro-learn/bin/…` when the data dir is the default one, so
 * that project files a team commits hold no machine's paths. The MCP server goes through `sh -c`
 * because agents run an MCP command without a shell (nothing would expand `$HOME`).
 */
export function installCommands(
  settings: Settings,
  options: { home?: string } = {},
): InstallCommands {
  const home = options.home ?? homeDir();
  const named = (path: string) => portablePath(path, { home, dataDir: settings.dataDir });
  return {
    shim: (
      surface,
      extraArgs = [],
    ) => [named(launcherPath(settings.paths.bin, surface)), ...extraArgs],
    mcp: () => {
      const path = named(launcherPath(settings.paths.bin, "mcp"));
      const word = path.startsWith("$HOME/")
        ? `"$HOME"${shellQuote(path.slice(5))}`
        : shellQuote(path);
      return ["sh", "-c", `exec ${word}`];
    },
    launchers: () => launcherFiles(settings, { home }),
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

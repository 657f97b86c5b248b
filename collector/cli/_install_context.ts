/**
 * What `install`, `uninstall` and `doctor` share: the user's home, the project of the current
 * directory, and the commands hooks and MCP entries run.
 *
 * @module
 */
import { launcherFiles, launcherPath, portablePath, shellQuote } from "@kiro-learn/core/launch";
import { collectorMcpUrl } from "@kiro-learn/core/api";
import { resolveProject } from "@kiro-learn/core/project";
import type { Settings } from "@kiro-learn/core/settings";
import { codexHomeFromEnv, copilotHome, type InstallCommands } from "./installer/mod.ts";
import { invocationDir } from "./_command.ts";

/**
 * The commands hooks and MCP entries run: the launchers in the data dir (core/launch's
 * `hook_launcher.ts`), named `$HOME/.kiro-learn/bin/…` when the data dir is the default one, so
 * that project files a team commits hold no machine's paths. The MCP server goes through `sh -c`
 * because agents run an MCP command without a shell (nothing would expand `$HOME`).
 */
export function installCommands(
  settings: Settings,
  options: { home?: string; mcp?: "http" | "stdio" } = {},
): InstallCommands {
  const home = options.home ?? homeDir();
  const named = (path: string) => portablePath(path, { home, dataDir: settings.dataDir });
  return {
    shim: (
      surface,
      extraArgs = [],
    ) => [named(launcherPath(settings.paths.bin, surface)), ...extraArgs],
    mcp: () => ["sh", "-c", `exec ${shellWord(named(launcherPath(settings.paths.bin, "mcp")))}`],
    mcpHttp: () => {
      // The helper's launcher reads the session's folder from /proc (see shims/mcp_headers.ts).
      if (options.mcp === "stdio" || Deno.build.os !== "linux") return null;
      const path = named(launcherPath(settings.paths.bin, "mcp-headers"));
      return {
        url: collectorMcpUrl(settings.collector.host, settings.collector.port),
        // Claude Code runs it through `sh -c`, which expands $HOME.
        headersHelper: `exec ${shellWord(path)}`,
      };
    },
    // Gemini CLI and Copilot CLI cannot hand the token to an HTTP entry: their stdio entry is the
    // sh relay to the same route, unless `--mcp stdio` asks for the Deno server everywhere.
    mcpRelay: () =>
      options.mcp === "stdio"
        ? null
        : ["sh", "-c", `exec ${shellWord(named(launcherPath(settings.paths.bin, "mcp-relay")))}`],
    launchers: () => launcherFiles(settings, { home }),
  };
}

/** A launcher path as one shell word: `$HOME/…` left for the shell to expand, the rest quoted. */
function shellWord(path: string): string {
  return path.startsWith("$HOME/") ? `"$HOME"${shellQuote(path.slice(5))}` : shellQuote(path);
}

/** The user's home folder, where the agents keep their user-level config. */
export function homeDir(): string {
  const value = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
  if (!value) throw new Error("HOME is not set: cannot find the agents' config folders");
  return value;
}

/** Codex CLI's home when `CODEX_HOME` names one (undefined: `~/.codex`). */
export function codexHomeDir(): string | undefined {
  return codexHomeFromEnv({ CODEX_HOME: Deno.env.get("CODEX_HOME") });
}

/** Copilot CLI's config folder, as Copilot CLI finds it (`COPILOT_HOME`, else `~/.copilot`). */
export function copilotConfigDir(): string {
  return copilotHome(homeDir(), { COPILOT_HOME: Deno.env.get("COPILOT_HOME") });
}

/** The project the cwd belongs to (its root), for per-project hook files. */
export function currentProjectDir(cwd: string = invocationDir()): string {
  return resolveProject(cwd).project_root;
}

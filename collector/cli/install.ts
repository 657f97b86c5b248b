/**
 * `install`, `uninstall`, `doctor`: the installer with the real shim and MCP commands.
 *
 * @module
 */
import { mcpCommand, shimCommand } from "@kiro-learn/core/launch";
import { resolveProject } from "@kiro-learn/core/project";
import type { Settings } from "@kiro-learn/core/settings";
import { doctor, install, type InstallCommands, uninstall } from "./installer/mod.ts";
import { stop } from "./lifecycle.ts";

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

function home(): string {
  const value = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
  if (!value) throw new Error("HOME is not set: cannot find the agents' config folders");
  return value;
}

/** The project the cwd belongs to (its root), for per-project hook files. */
export function currentProjectDir(cwd = Deno.cwd()): string {
  return resolveProject(cwd).project_root;
}

/** Runs `install`. */
export async function runInstall(
  settings: Settings,
  options: {
    dryRun?: boolean;
    kiroFormat?: "v2" | "v3" | "auto";
    scope?: "user" | "project";
    kiroIdeLegacy?: boolean;
  },
): Promise<number> {
  const projectDir = currentProjectDir();
  await install({
    home: home(),
    projectDir,
    dataDir: settings.dataDir,
    kiroFormat: options.kiroFormat ?? "auto",
    scope: options.scope ?? "user",
    kiroIdeLegacy: options.kiroIdeLegacy ?? false,
    commands: installCommands(settings, { projectDir }),
    dryRun: options.dryRun,
  });
  if (!options.dryRun) {
    console.log("next: `kiro-learn start`, then `kiro-learn doctor` to check the wiring");
  }
  return 0;
}

/** Runs `uninstall` (stopping the collector first). */
export async function runUninstall(
  settings: Settings,
  options: { keepData?: boolean; dryRun?: boolean },
): Promise<number> {
  const projectDir = currentProjectDir();
  if (!options.dryRun) await stop(settings, { print: () => {} });
  await uninstall({
    home: home(),
    projectDir,
    dataDir: settings.dataDir,
    keepData: options.keepData ?? false,
    commands: installCommands(settings, { projectDir }),
    dryRun: options.dryRun,
  });
  return 0;
}

/** Runs `doctor`; its exit code is 0 when every check passes. */
export async function runDoctor(settings: Settings): Promise<number> {
  const projectDir = currentProjectDir();
  const report = await doctor({
    home: home(),
    projectDir,
    dataDir: settings.dataDir,
    commands: installCommands(settings, { projectDir }),
  });
  return report.exitCode;
}

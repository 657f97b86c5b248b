/**
 * Test helper: the hook and MCP launchers `kiro-learn install` writes, for a test daemon.
 *
 * @module
 */
import {
  launcherFiles,
  launcherPath,
  type McpLauncher,
  type ShimSurface,
} from "@kiro-learn/core/launch";
import type { TestDaemon } from "./daemon.ts";

/**
 * Writes the launchers `install` writes into the daemon's bin folder (optionally naming a Deno
 * that does not exist), and returns the path of the one named `launcher`.
 */
export async function installLaunchers(
  daemon: TestDaemon,
  options: { home: string; denoPath?: string; launcher: ShimSurface | McpLauncher },
): Promise<string> {
  await Deno.mkdir(daemon.settings.paths.bin, { recursive: true });
  const { home, denoPath } = options;
  for (const file of launcherFiles(daemon.settings, { home, denoPath })) {
    await Deno.writeTextFile(file.path, file.content, { mode: 0o755 });
  }
  return launcherPath(daemon.settings.paths.bin, options.launcher);
}

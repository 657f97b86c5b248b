/**
 * The collector process. Launched by `kiro-learn serve` / `start` with narrow permissions
 * (see runtime/permissions.ts); it never widens them.
 *
 * @module
 */
import { loadSettings, SettingsError } from "@kiro-learn/core/settings";
import { createLogger } from "./runtime/mod.ts";
import { startCollector } from "./start.ts";

if (import.meta.main) {
  const detached = Deno.args.includes("--detached");
  let settings;
  try {
    settings = loadSettings();
  } catch (error) {
    console.error(error instanceof SettingsError ? error.message : String(error));
    Deno.exit(2);
  }
  const logger = createLogger({
    level: settings.log.level,
    logDir: settings.paths.logs,
    stderr: !detached,
  });
  for (const warning of settings.warnings) logger.warn(warning);
  let collector;
  try {
    collector = await startCollector(settings, {
      logger,
      writePidFile: true,
      unixSocket: true,
      teamSandbox: true,
      termSpaceSandbox: true,
    });
  } catch (error) {
    logger.error("collector failed to start", { error: String(error) });
    if (!detached) console.error(`kiro-learn: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
  const stop = async () => {
    await collector.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
}

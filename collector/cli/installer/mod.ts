/**
 * The installer: `install` / `uninstall` (plan, print, apply), the plan itself for dry runs, and
 * `doctor`. The shim and MCP commands are inputs, so the caller decides between compiled shims
 * and `deno run`.
 *
 * @module
 */
export { InstallError } from "./errors.ts";
export { copilotHome } from "./_targets.ts";
export { install, type RunOptions, uninstall } from "./install.ts";
export {
  apply,
  type ApplyResult,
  formatPlan,
  INSTALL_AGENTS,
  type InstallAgent,
  type InstallCommands,
  type InstallOptions,
  type Plan,
  type PlanAction,
  planInstall,
  planUninstall,
  type Surface,
  type UninstallOptions,
} from "./plan.ts";
export {
  type CheckStatus,
  doctor,
  type DoctorCheck,
  type DoctorOptions,
  type DoctorReport,
  formatCheck,
  type HealthProbe,
} from "./doctor.ts";
export {
  chooseKiroFormat,
  type KiroFormat,
  type KiroFormatChoice,
  parseKiroCliVersion,
  probeKiroCliVersion,
  seedKiroAgent,
  type SeedResult,
} from "./kiro_cli.ts";
export { HOOK_MARKER, hookCommand, shellQuote, splitCommand } from "./shell.ts";
export { MANIFEST_FILE } from "./manifest.ts";
export { codexHomeFromEnv } from "./_targets.ts";

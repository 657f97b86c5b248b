/**
 * `install` and `uninstall`: plan, print, and (unless it is a dry run) apply.
 *
 * Stopping the collector before an uninstall is the caller's job.
 *
 * @module
 */
import {
  apply,
  formatPlan,
  type InstallOptions,
  type Plan,
  planInstall,
  planUninstall,
  type UninstallOptions,
} from "./plan.ts";

/** Options shared by {@linkcode install} and {@linkcode uninstall}. */
export interface RunOptions {
  /** Print the plan and change nothing. */
  dryRun?: boolean;
  /** Where the plan is printed (default `console.log`). */
  print?: (text: string) => void;
}

/**
 * Installs kiro-learn's hooks, agents and MCP registrations (see `planInstall`), printing the
 * plan first. Returns the plan. Throws `InstallError` (nothing written) for any problem.
 */
export async function install(options: InstallOptions & RunOptions): Promise<Plan> {
  const plan = await planInstall(options);
  (options.print ?? console.log)(formatPlan(plan, { dryRun: options.dryRun }));
  if (!options.dryRun) apply(plan);
  return plan;
}

/**
 * Removes everything kiro-learn installed (see `planUninstall`), and the data dir unless
 * `keepData`, printing the plan first. Returns the plan. Throws `InstallError` (nothing written)
 * for any problem.
 */
export async function uninstall(options: UninstallOptions & RunOptions): Promise<Plan> {
  const plan = await planUninstall(options);
  (options.print ?? console.log)(formatPlan(plan, { dryRun: options.dryRun }));
  if (!options.dryRun) apply(plan);
  return plan;
}

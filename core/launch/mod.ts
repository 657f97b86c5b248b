/**
 * Launching the processes the agent runs: the hook shims and the MCP server, with exactly the
 * permissions each needs. The collector's `kiro-learn` CLI (install, doctor) builds their
 * command lines from here, since it may import only core; `layout.ts` is the one place that
 * knows where the entries live in the checkout.
 *
 * @module
 */
export {
  CLAUDE_IMPORT_ENTRY,
  CLI_ENTRY,
  DENO_ENV,
  denoEnvAssignments,
  denoEnvLines,
  LOCAL_MODULES_ONLY,
  MCP_ENTRY,
  MCP_HEADERS_ENTRY,
  REPO_ROOT,
  SHIM_BIN_DIR,
  SHIM_ENTRIES,
  shimEntryPath,
  type ShimSurface,
  WORKSPACE_CONFIG,
} from "./layout.ts";
export { CLI_RUN_FLAGS, cliArgv, cliLauncherScript } from "./cli.ts";
export {
  AGENT_CWD_ARG,
  HOME_DATA_DIR,
  hookFastPath,
  hookLauncherScript,
  launcherFiles,
  launcherPath,
  mcpHeadersLauncherScript,
  type McpLauncher,
  mcpLauncherScript,
  mcpRelayLauncherScript,
  portablePath,
} from "./hook_launcher.ts";
export { type StarterOptions, starterScript, writeStarter } from "./starter.ts";
export { MCP_ENV_VARS, mcpCommand, type McpCommandOptions, mcpHeadersCommand } from "./mcp.ts";
export {
  AGENT_PID_ARG,
  commandPresence,
  hookCommandLine,
  readableRoot,
  resolveCommand,
  shellQuote,
  SHIM_ENV_VARS,
  SHIM_RUN_FLAGS,
  shimCommand,
  type ShimCommandOptions,
  shimPermissionFlags,
  type ShimPermissionOptions,
  type ShimPermissions,
  shimPermissions,
} from "./shim.ts";

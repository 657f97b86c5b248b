/**
 * The command line that runs the MCP server with exactly the permissions it needs; the
 * installer registers this argv with the agent.
 *
 * @module
 */
import { join } from "../path.ts";
import { ENV_OVERRIDES } from "../settings/mod.ts";
import type { Settings } from "../settings/mod.ts";
import { LOCAL_MODULES_ONLY, MCP_ENTRY, MCP_HEADERS_ENTRY, WORKSPACE_CONFIG } from "./layout.ts";
import { SHIM_ENV_VARS, SHIM_RUN_FLAGS, shimPermissions } from "./shim.ts";

/**
 * Environment variables the server reads, and no others: the data dir and settings overrides
 * (settings), the home and user names (project identity), and the project-dir overrides.
 */
export const MCP_ENV_VARS: readonly string[] = Object.freeze([
  "KIRO_LEARN_HOME",
  ...Object.keys(ENV_OVERRIDES),
  "HOME",
  "USERPROFILE",
  "USER",
  "USERNAME",
  "LOGNAME",
  "KIRO_LEARN_PROJECT_DIR",
  "CLAUDE_PROJECT_DIR",
]);

/** Options for {@linkcode mcpCommand}. */
export interface McpCommandOptions {
  /** Collector host from settings.json (loopback). */
  host: string;
  /** Collector port from settings.json. */
  port: number;
  /** Another kiro-learn checkout holding `deno.json` and `mcp/`; defaults to this one. */
  repoRoot?: string;
  /** The `deno` binary; defaults to `Deno.execPath()`. */
  execPath?: string;
}

/**
 * The argv that starts the MCP server:
 * `<deno> run <flags> --config <repo>/deno.json <repo>/mcp/main.ts`.
 *
 * {@linkcode LOCAL_MODULES_ONLY}: it works offline, never waits on the registry at an agent's
 * start, and no dynamic `import()` reaches the network.
 * Permissions: net only to the collector's `host:port`; read everywhere, because project
 * detection stats marker files in every ancestor of the cwd (besides reading settings.json
 * and the token); env only {@linkcode MCP_ENV_VARS}; no write, run, ffi or sys.
 */
export function mcpCommand(options: McpCommandOptions): string[] {
  const root = options.repoRoot;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return [
    options.execPath ?? Deno.execPath(),
    "run",
    "--no-prompt",
    // Started by the agent for every session: never contact the registry to re-resolve npm
    // packages (the MCP SDK and zod come from the local cache the checkout was set up with),
    // and never resolve a remote module.
    ...LOCAL_MODULES_ONLY,
    `--allow-net=${host}:${options.port}`,
    "--allow-read",
    `--allow-env=${MCP_ENV_VARS.join(",")}`,
    "--config",
    root === undefined ? WORKSPACE_CONFIG : join(root, "deno.json"),
    root === undefined ? MCP_ENTRY : join(root, "mcp", "main.ts"),
  ];
}

/**
 * The argv of Claude Code's headers helper for the collector's MCP route
 * (`shims/mcp_headers.ts`): `<deno> run <flags> <entry>`. Permissions: net only to the
 * collector; read everywhere, because the session's folder is read from `/proc/<pid>/cwd` and
 * project detection stats marker files in its every ancestor; env only the hooks' variables;
 * run only the collector's starter (a collector that is down is started, as the hooks do); no
 * write, ffi or sys.
 */
export function mcpHeadersCommand(
  settings: Pick<Settings, "dataDir" | "paths" | "collector">,
  options: { denoPath?: string; home?: string } = {},
): string[] {
  const permissions = shimPermissions(settings, { home: options.home });
  return [
    options.denoPath ?? Deno.execPath(),
    "run",
    ...SHIM_RUN_FLAGS,
    "--no-prompt",
    `--allow-net=${permissions.net}`,
    "--allow-read",
    `--allow-env=${SHIM_ENV_VARS.join(",")}`,
    `--allow-run=${permissions.run.join(",")}`,
    MCP_HEADERS_ENTRY,
  ];
}

/**
 * Builds the `kiro-learn-memory` MCP server and works out, once at start, which project and
 * which collector it serves.
 *
 * @module
 */
import { envGet, type EnvLike } from "@kiro-learn/core/env";
// @ts-types: see tools.ts (the SDK's wildcard export hides its types from Deno).
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { currentActor, resolveProject } from "@kiro-learn/core/project";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { loadSettings } from "@kiro-learn/core/settings";
import { VERSION } from "@kiro-learn/core/version";
import { type CollectorClient, CollectorError, createCollectorClient } from "@kiro-learn/core/api";
import { registerTools, type ToolContext } from "./tools.ts";

/** The server name agents see (and register the server under). */
export const SERVER_NAME = "kiro-learn-memory";

const INSTRUCTIONS = "Long-term memory for this project, shared with kiro-learn's hooks. " +
  "Use search_memory before re-investigating something, get_memories for full records, " +
  "recent_activity to catch up, save_observation for a decision, fix or discovery worth " +
  "keeping, and save_session_summary at the end of a substantial turn.";

/**
 * Who the server is and what it offers, as `initialize` answers it and as the collector's HTTP
 * route answers `server/discover` (which it serves without building a server). The tool list never
 * changes while a client is connected (the HTTP route keeps no session to tell one on): saying so
 * spares the client listening for a change.
 */
export const SERVER_DESCRIPTION = {
  serverInfo: { name: SERVER_NAME, version: VERSION },
  capabilities: { tools: { listChanged: false } },
  instructions: INSTRUCTIONS,
} as const;

/** Builds the MCP server with every memory tool registered. */
export function createMemoryServer(context: ToolContext): McpServer {
  const server = new McpServer(
    SERVER_DESCRIPTION.serverInfo,
    { capabilities: { tools: {} }, instructions: SERVER_DESCRIPTION.instructions },
  );
  registerTools(server, context);
  server.server.registerCapabilities(SERVER_DESCRIPTION.capabilities);
  return server;
}

export type { EnvLike };

/** Options for {@linkcode startupContext}. */
export interface StartupContextOptions {
  /** Environment to read; defaults to `Deno.env`. */
  env?: EnvLike;
  /** Working directory; defaults to `Deno.cwd()`. */
  cwd?: string;
  /** Collector request timeout in milliseconds; defaults to the client's 5 s. */
  timeoutMs?: number;
}

/** Where the project dir comes from, most specific first. */
export const PROJECT_DIR_ENV_VARS: readonly string[] = [
  "KIRO_LEARN_PROJECT_DIR",
  "CLAUDE_PROJECT_DIR",
];

/**
 * The project directory: `KIRO_LEARN_PROJECT_DIR`, else `CLAUDE_PROJECT_DIR` (Claude Code sets
 * it), else the cwd, which is the project for agents that start MCP servers inside it (Kiro).
 */
export function projectDir(options: { env?: EnvLike; cwd?: string } = {}): string {
  for (const name of PROJECT_DIR_ENV_VARS) {
    const value = envGet(options.env, name)?.trim();
    if (value) return value;
  }
  return options.cwd ?? Deno.cwd();
}

/**
 * The namespace and collector client, computed once. Never throws: a broken settings.json
 * or an unreadable cwd yields a client whose every call fails with the reason, so the server
 * still starts and each tool explains what to fix.
 */
export function startupContext(options: StartupContextOptions = {}): ToolContext {
  let namespace = "";
  try {
    // With an explicit env, the actor and home come from it too, as they would in a child.
    const identityOptions = options.env === undefined ? {} : {
      actor: currentActor(options.env),
      home: options.env.HOME ?? options.env.USERPROFILE,
    };
    const project = resolveProject(projectDir(options), identityOptions);
    namespace = project.namespace;
    const settings = loadSettings({ env: options.env });
    for (const warning of settings.warnings) log(warning);
    const client = createCollectorClient({
      host: settings.collector.host,
      port: settings.collector.port,
      tokenPath: settings.paths.token,
      timeoutMs: options.timeoutMs,
    });
    if (project.id_source !== "git-remote") return { namespace, client };
    return {
      namespace,
      client: identifiedFirst(
        client,
        () => client.identifyProject(namespace, project.project_root),
      ),
    };
  } catch (error) {
    const message = `kiro-learn-memory could not start: ${(error as Error)?.message ?? error}`;
    log(message);
    return { namespace, client: failingClient(message) };
  }
}

/** Writes a diagnostic line to stderr (stdout belongs to JSON-RPC). */
export function log(...parts: unknown[]): void {
  console.error(`[${SERVER_NAME}]`, ...parts);
}

/**
 * `client`, whose first call first names the project to the collector, so its older namespace
 * has moved before the agent's first search or save. The server starts without waiting for the
 * collector. Tried once: a failure is logged and the call goes on (the project's hook events
 * move the namespace too), so a collector that hangs costs one timeout, not one per call.
 */
function identifiedFirst(
  client: CollectorClient,
  identify: () => Promise<unknown>,
): CollectorClient {
  let ready: Promise<void> | undefined;
  const first = () =>
    ready ??= identify().then(() => {}, (error) => {
      log(`could not name the project to the collector: ${(error as Error)?.message ?? error}`);
    });
  const after = <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
  async (
    ...args: A
  ): Promise<R> => {
    await first();
    return await call(...args);
  };
  return {
    url: client.url,
    health: () => client.health(),
    identifyProject: (namespace, path) => client.identifyProject(namespace, path),
    request: after(client.request),
    search: after(client.search),
    getMemory: after(client.getMemory),
    listMemories: after(client.listMemories),
    saveMemory: after(client.saveMemory),
    deleteMemory: after(client.deleteMemory),
  };
}

function failingClient(message: string): CollectorClient {
  const fail = (): Promise<never> => Promise.reject(new CollectorError(message));
  return {
    url: "",
    health: () => Promise.resolve(null),
    request: fail,
    search: fail,
    getMemory: fail,
    listMemories: fail,
    saveMemory: (_record: MemoryRecord) => fail(),
    deleteMemory: fail,
    identifyProject: fail,
  };
}

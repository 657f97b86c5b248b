/**
 * Shapes and constants shared by the agent definitions. This member imports nothing (not even
 * `core`), so the few domain words the prompts need are restated here and pinned against `core`
 * by a contract test in the installer.
 *
 * @module
 */

/** The small model every kiro-learn LLM agent is pinned to: cheap, fast, and good at XML. */
export const AGENT_MODEL = "claude-haiku-4.5";

/** The six observation types a memory record can carry (same order as `core`). */
export const OBSERVATION_TYPES = [
  "tool_use",
  "decision",
  "error",
  "discovery",
  "pattern",
  "session_summary",
] as const;

/** One observation type. */
export type ObservationType = (typeof OBSERVATION_TYPES)[number];

/** The event kinds the collector frames as `<tool_observation kind="...">`. */
export const OBSERVATION_KINDS = ["prompt", "tool_use", "session_summary", "note"] as const;

/** Longest title the parsers keep, in characters. */
export const TITLE_MAX_CHARS = 200;

/** Longest summary the parsers keep, in characters. */
export const SUMMARY_MAX_CHARS = 4000;

/** A JSON value (what an agent file may hold). */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** An MCP server entry of a Kiro agent or mcp.json. */
export interface McpServerEntry {
  /** Executable to start. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Extra environment, if any. */
  env?: Record<string, string>;
}

/** An embedded (Kiro CLI 2.x) hook: one command, optionally for matching tools only. */
export interface EmbeddedHook {
  /** Shell command. */
  command: string;
  /** Tool matcher (tool hooks only). */
  matcher?: string;
  /** Timeout in milliseconds. */
  timeout_ms?: number;
}

/** A Kiro CLI agent file (`~/.kiro/agents/<name>.json`), restricted to the fields we write. */
export interface KiroAgentConfig {
  /** Agent name; equals the file name without `.json`. */
  name: string;
  /** One-line description shown by `kiro-cli agent list`. */
  description: string;
  /** System prompt. */
  prompt: string;
  /** Tools the agent may use; empty means none. */
  tools: string[];
  /** Tools used without asking. */
  allowedTools: string[];
  /** Context files loaded at start. */
  resources: string[];
  /** MCP servers the agent starts, by name. */
  mcpServers: Record<string, McpServerEntry>;
  /** Whether workspace/global mcp.json servers are added to `mcpServers`. */
  includeMcpJson: boolean;
  /** Pinned model id, when the agent needs one. */
  model?: string;
  /** Embedded hooks by trigger (Kiro CLI 2.x only). */
  hooks?: Record<string, EmbeddedHook[]>;
}

/** Deep-freezes a JSON-able definition so no importer can edit the shared copy. */
export function freezeDeep<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const inner of Object.values(value)) freezeDeep(inner);
    Object.freeze(value);
  }
  return value;
}

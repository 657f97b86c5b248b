/**
 * The `kiro-learn` chat agent: the user's everyday Kiro CLI 2.x agent with kiro-learn's capture
 * hooks embedded and the memory MCP server attached. Kiro CLI 3.x uses standalone hook files
 * instead, so the installer writes this agent only for the 2.x ("v2") format.
 *
 * The template is the fallback when `kiro-cli agent create --from kiro_default` cannot seed the
 * agent; the installer fills `hooks` and `mcpServers` either way.
 *
 * @module
 */
import { freezeDeep, type KiroAgentConfig } from "./types.ts";

/** The chat agent's name (and file name, `~/.kiro/agents/kiro-learn.json`). */
export const CHAT_AGENT_NAME = "kiro-learn";

/** The name the memory MCP server is registered under everywhere. */
export const MCP_SERVER_NAME = "kiro-learn-memory";

/**
 * The embedded hook triggers the chat agent carries, in the order they are written. Capture hooks
 * never get `cache_ttl_seconds`: Kiro keys its hook cache on the hook, not on its input, so a
 * cached capture hook would silently drop every event after the first.
 */
export const CHAT_AGENT_HOOK_TRIGGERS: readonly { trigger: string; matcher?: string }[] =
  freezeDeep([
    { trigger: "agentSpawn" },
    { trigger: "userPromptSubmit" },
    { trigger: "postToolUse", matcher: "*" },
    { trigger: "stop" },
  ]);

/** The chat agent's description. */
export const CHAT_AGENT_DESCRIPTION =
  "Kiro with kiro-learn project memory: sessions are captured and relevant memories recalled.";

/**
 * Appended to a seeded agent's prompt (and used alone by the fallback): tells the model where the
 * injected context comes from and which memory tools it has.
 */
export const CHAT_AGENT_IDENTITY =
  "You are running as the kiro-learn agent: Kiro with a local, per-project memory. Context " +
  "headed as kiro-learn memory may be added to a prompt; it holds notes from earlier sessions in " +
  "this project, which can be out of date, so check them against the code before relying on " +
  `them. The ${MCP_SERVER_NAME} tools let you search that memory (search_memory, get_memories, ` +
  "recent_activity), record something worth keeping (save_observation, save_session_summary) " +
  "and remove a wrong memory (forget_memory).";

/** Read-only memory tools the chat agent may call without asking. */
export const CHAT_AGENT_TRUSTED_TOOLS: readonly string[] = freezeDeep([
  `@${MCP_SERVER_NAME}/search_memory`,
  `@${MCP_SERVER_NAME}/get_memories`,
  `@${MCP_SERVER_NAME}/recent_activity`,
]);

/** The fallback chat agent; `hooks` and `mcpServers` are left empty for the installer to fill. */
export const CHAT_AGENT_TEMPLATE: Readonly<KiroAgentConfig> = freezeDeep({
  name: CHAT_AGENT_NAME,
  description: CHAT_AGENT_DESCRIPTION,
  prompt: CHAT_AGENT_IDENTITY,
  tools: ["*"],
  allowedTools: [...CHAT_AGENT_TRUSTED_TOOLS],
  resources: [],
  hooks: {},
  mcpServers: {},
  includeMcpJson: true,
});

/**
 * The Kiro CLI agent definitions kiro-learn installs, as JSON-able data: the three LLM agents the
 * collector drives over ACP (compressor, reconciler, compactor) and the `kiro-learn` chat agent
 * template. This member imports nothing; the installer writes these objects out as agent files.
 *
 * @module
 */
import { COMPACTOR_AGENT } from "./compactor.ts";
import { COMPRESSOR_AGENT } from "./compressor.ts";
import { RECONCILER_AGENT } from "./reconciler.ts";
import { freezeDeep, type KiroAgentConfig } from "./types.ts";

export {
  AGENT_MODEL,
  type EmbeddedHook,
  type JsonValue,
  type KiroAgentConfig,
  type McpServerEntry,
  OBSERVATION_KINDS,
  OBSERVATION_TYPES,
  type ObservationType,
  SUMMARY_MAX_CHARS,
  TITLE_MAX_CHARS,
} from "./types.ts";
export {
  COMPRESSOR_AGENT,
  COMPRESSOR_EXAMPLE_INPUT,
  COMPRESSOR_EXAMPLE_OUTPUT,
  COMPRESSOR_EXAMPLE_SKIP,
  COMPRESSOR_NAME,
} from "./compressor.ts";
export {
  RECONCILER_AGENT,
  RECONCILER_EXAMPLE_INPUT,
  RECONCILER_EXAMPLE_KEEP,
  RECONCILER_EXAMPLE_MERGE,
  RECONCILER_NAME,
} from "./reconciler.ts";
export { COMPACTOR_AGENT, COMPACTOR_EXAMPLE_OUTPUT, COMPACTOR_NAME } from "./compactor.ts";
export { AGENT_INSTRUCTIONS_PREAMBLE, agentInstructions, isAgentPrompt } from "./instructions.ts";
export {
  CHAT_AGENT_DESCRIPTION,
  CHAT_AGENT_HOOK_TRIGGERS,
  CHAT_AGENT_IDENTITY,
  CHAT_AGENT_NAME,
  CHAT_AGENT_TEMPLATE,
  CHAT_AGENT_TRUSTED_TOOLS,
  MCP_SERVER_NAME,
} from "./chat.ts";

/** The LLM agents the collector runs over ACP, in a fixed order; all have no tools. */
export const LLM_AGENTS: readonly Readonly<KiroAgentConfig>[] = freezeDeep([
  COMPRESSOR_AGENT,
  RECONCILER_AGENT,
  COMPACTOR_AGENT,
]);

/**
 * Hook plans shared by the shims and the collector: what an agent's hook payload means (the
 * Claude Code and Codex plans), the events it becomes (tool-use bodies, caps, ids derived from the
 * firing) and what the hook prints. npm-free: a hook loads it on every firing.
 *
 * @module
 */
export { type FastPathSurface, HOOK_AGENTS, type HookAgent } from "./agents.ts";
export {
  CLAUDE_QUIET_START_SOURCES,
  CLAUDE_RETRIEVE_HOOKS,
  CLAUDE_START_SOURCES,
  CLAUDE_STORE_HOOKS,
  CLAUDE_TOOL_HOOKS,
  claudeCodePlan,
  type ClaudePlanOptions,
  STORE_ONLY_ARG,
  TURN_TOOLS_ARG,
} from "./claude_code.ts";
export { CODEX_IGNORED_HOOKS, codexHookOutput, codexPlan, type CodexPlanOptions } from "./codex.ts";
export {
  COPILOT_CONTEXT_EVENTS,
  COPILOT_HOOK_EVENTS,
  COPILOT_IGNORED_EVENTS,
  COPILOT_STORE_EVENTS,
  COPILOT_TOOL_EVENTS,
  copilotCliPlan,
  copilotHookOutput,
  type CopilotPlanOptions,
  copilotToolError,
  type CopilotTurnAnswer,
  copilotTurnAnswer,
} from "./copilot_cli.ts";
export {
  GEMINI_CONTEXT_EVENTS,
  GEMINI_HOOK_EVENTS,
  GEMINI_IGNORED_EVENTS,
  geminiCliPlan,
  geminiHookOutput,
  type GeminiPlanOptions,
  geminiToolError,
} from "./gemini_cli.ts";
export {
  FIRING_ARG,
  firingFromArgs,
  hookBodyCap,
  type HookDelivery,
  hookEvent,
  hookEventId,
  type HookEventOptions,
  type HookFiring,
  type HookProject,
  NO_WAIT_ARG,
  parseFiring,
  planEvents,
  type PlanEventsOptions,
} from "./event.ts";
export {
  clientIdFrom,
  type HookPlan,
  hookStdout,
  joinBlocks,
  MAX_SESSION_ID,
  parseHookPayload,
  type PayloadParse,
  type PlannedEvent,
  str,
  type TimeoutClass,
  validSessionId,
} from "./plan.ts";
export {
  detectFailure,
  firstErrorLine,
  isOwnTool,
  MAX_ERROR_LINE,
  type ToolCall,
  toolUseBody,
} from "./tool_use.ts";
export {
  capHookOutput,
  cutString,
  MAX_HOOK_OUTPUT_BYTES,
  MIN_KEPT_CHARS,
  OUTPUT_CUT_MARKER,
  serializedBytes,
  truncateBody,
  type TruncateResult,
} from "./truncate.ts";

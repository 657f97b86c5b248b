/**
 * Hook shims: one small entry per agent (`kiro_cli.ts`, `kiro_ide.ts`, `claude_code.ts`,
 * `codex.ts`, `gemini_cli.ts`) and
 * the pieces they share, plus the tools around them (replay of recorded sessions,
 * compilation). Their launch commands and permissions live in `@kiro-learn/core/launch` and
 * the spool format in `@kiro-learn/core/spool`, so the collector's CLI can use them.
 *
 * The entries themselves import only the modules they need (never this one), so a hook firing
 * loads no replay or compile code.
 *
 * @module
 */
export { claudeCodePlan } from "./claude_code.ts";
export {
  importTranscript,
  transcriptEvents,
  type TranscriptImport,
  type TranscriptPayload,
  type TranscriptPayloads,
  transcriptPayloads,
} from "./claude_import.ts";
export { codexPlan } from "./codex.ts";
export { copilotCliPlan, copilotOutput } from "./copilot_cli.ts";
export { isInternal, readShimEnv, type ShimEnv } from "./env.ts";
export { geminiCliPlan, geminiOutput } from "./gemini_cli.ts";
export { httpPost, type HttpPostOptions, type HttpResponse, HttpTimeoutError } from "./http.ts";
export { kiroCliPlan, type KiroPlanOptions } from "./kiro_cli.ts";
export { agentCwdArg, mcpHeaders, proves } from "./mcp_headers.ts";
export { type IdePlanOptions, kiroIdePlan } from "./kiro_ide.ts";
export {
  formatResult,
  replay,
  type ReplayLine,
  type ReplayOptions,
  type ReplayResult,
} from "./replay.ts";
export {
  type AgentPlanOptions,
  executePlan,
  type HookPlan,
  type PayloadPlanner,
  type PlannedEvent,
  type PlanOutcome,
  planPayload,
  runShim,
  stdinPlanner,
  type TimeoutClass,
} from "./run.ts";
export {
  agentPidFromArgs,
  agentProcess,
  kiroSessionId,
  type SessionIdOptions,
  validSessionId,
} from "./session.ts";
export { readStdin, type ReadStdinOptions, type StdinResult } from "./stdin.ts";
export {
  buildEvent,
  type BuildEventOptions,
  clientId,
  deliver,
  type DeliverOptions,
  type Delivery,
  type DeliveryResult,
  type EventDraft,
  loadShimConfig,
  postEvent,
  type PostOptions,
  type PostResult,
  type ShimConfig,
} from "./transport.ts";
